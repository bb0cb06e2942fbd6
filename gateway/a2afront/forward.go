package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/policy"
)

// Every request that leaves the front for an agent is an outbound sent
// by send, through the agent's proxy: single calls, batch elements and the
// resolution hook alike. The proxy strips the caller's credentials and
// capability headers from its own copy of the request, then lets the call
// set the body and headers the gateway built and sets the capability
// headers the gateway vouches for, so there is one header hygiene for
// every path, and the caller's request is copied once, by the proxy.

// outbound is one request the front sends an agent, as the proxy and
// the front's hooks see it. It travels as the request's one context value
// (proxy.WithOutbound); the answer processors, the error handler and the
// proxy all read it from there.
type outbound struct {
	c       *call           // whose answer the processors see; nil: none (the resolution hook)
	id      json.RawMessage // for the proxy's error answer
	vouched *proxy.Context  // the capability context the gateway vouches for; nil: none
	body    []byte          // what the agent receives
	trace   bool            // the front traces: send the trace context on
	failed  bool            // set by the proxy's error handler
}

// allowedCall is the outbound of a decided call.
func allowedCall(c *call, out outcome) *outbound {
	return &outbound{c: c, id: c.req.ID, vouched: out.cc, body: out.forward}
}

// Vouched implements proxy.Outbound.
func (u *outbound) Vouched() (proxy.Context, bool) {
	if u.vouched == nil {
		return proxy.Context{}, false
	}
	return *u.vouched, true
}

// Prepare implements proxy.Outbound: the decided body as a JSON POST. The
// answer processors read the answer: the transport asks for and undoes
// any compression itself, never the caller's encodings.
func (u *outbound) Prepare(out *http.Request) {
	proxy.SetJSONCall(out, u.body)
	if u.trace {
		injectTrace(out.Context(), out.Header)
	}
	if u.c != nil && u.c.translated != "" {
		translateHeaders(out.Header, u.c.to1)
	}
}

// upstreamFrom is the outbound a request or answer context carries.
func upstreamFrom(ctx context.Context) (*outbound, bool) {
	o, ok := proxy.OutboundFrom(ctx)
	if !ok {
		return nil, false
	}
	u, ok := o.(*outbound)
	return u, ok
}

// carry takes u through a's proxy to w, on ctx (r's own context or one
// derived from it), in an "upstream" span, and reports whether the hop
// failed. r is the caller's request; the proxy copies it, once.
func (f *Front) carry(ctx context.Context, w http.ResponseWriter, r *http.Request, u *outbound, a *agent) (failed bool) {
	if f.quiet {
		a.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
		return u.failed
	}
	ctx, span := f.deps.Tracer.Start(ctx, "upstream", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("capgate.agent", a.cfg.Name)))
	defer span.End()
	u.trace = true
	a.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
	if u.failed {
		span.SetStatus(codes.Error, "upstream_error")
	}
	return u.failed
}

// forward streams one decided call's answer to the caller and records it.
func (f *Front) forward(ctx context.Context, w http.ResponseWriter, c *call, out outcome) {
	start := f.deps.Now()
	failed := f.carry(ctx, w, c.http, allowedCall(c, out), c.agent)
	f.observeForwarded(c, start, failed)
}

// observeForwarded records one forwarded call: the upstream's latency and
// the call's result.
func (f *Front) observeForwarded(c *call, start time.Time, failed bool) {
	f.deps.Metrics.ObserveUpstream(c.agent.cfg.Name, f.deps.Now().Sub(start))
	result := "ok"
	if failed {
		result = "upstream_error"
	}
	f.deps.Metrics.ObserveRequest(c.agent.cfg.Name, c.canonical, result)
}

// errAnswerTooLarge stops the copy of an answer larger than the gateway
// will buffer.
var errAnswerTooLarge = errors.New("a2a front: upstream answer too large")

// bufferedAnswer is the ResponseWriter of an answer the gateway reads
// before the caller sees anything (a batch element, a resolution), bounded
// by max bytes.
type bufferedAnswer struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	max      int
	overflow bool
}

func newBufferedAnswer(max int) *bufferedAnswer {
	return &bufferedAnswer{header: http.Header{}, max: max}
}

// Header implements http.ResponseWriter.
func (b *bufferedAnswer) Header() http.Header { return b.header }

// WriteHeader implements http.ResponseWriter.
func (b *bufferedAnswer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

// Write implements http.ResponseWriter, refusing what exceeds the bound.
func (b *bufferedAnswer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	if b.body.Len()+len(p) > b.max {
		b.overflow = true
		return 0, errAnswerTooLarge
	}
	return b.body.Write(p)
}

// Flush implements http.Flusher; there is nothing to flush to.
func (b *bufferedAnswer) Flush() {}

// hopCheck validates the receiving agent's card before anything is
// forwarded: the version the call speaks (its A2A-Version header, or its
// method name's own generation) against the versions the card declares, and the capabilities the call needs (streaming, push
// notifications, the capability extension for a delegation unless policy
// explicitly allows legacy ambient authority for that agent). A card that
// cannot be fetched refuses the call: the gateway never forwards a hop it
// could not validate.
func (f *Front) hopCheck(ctx context.Context, c *call, delegated bool) *jsonrpc.Error {
	_, card, err := c.agent.card.Card(ctx)
	if err != nil {
		f.deps.Logger.WarnContext(ctx, "agent card unavailable; refusing the hop", "agent", c.agent.cfg.Name, "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent's card is unavailable; the call was not forwarded",
			Data: map[string]string{"reason": "card_unavailable"}}
	}
	method, header := upstreamCall(card, c)
	if err := agentcard.CheckMethod(card, method, header); err != nil {
		return hopError(err)
	}
	version := agentcard.SpokenVersion(method, header)
	need := agentcard.Requirements{ProtocolVersion: version, Capabilities: agentcard.RequirementsFor(c.req.Method, delegated)}
	if delegated && !agentcard.UnderstandsCapabilities(card) {
		need.AllowLegacyAmbient = f.deps.Policy.Current().DecideAmbient(ctx, policy.AmbientInput{
			Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name, Method: c.canonical, Now: f.deps.Now(),
		}).Allow
	}
	return hopError(agentcard.Validate(card, need))
}

// versionCheck refuses a call whose method generation or A2A-Version the
// agent's card does not support, for the methods that need nothing else
// from the card (tasks/get, tasks/cancel, …). It uses the card the gateway
// holds, fetching it first when it holds none (the same fetch translation
// would make), so the very first call to an agent is checked like every
// later one. A card that cannot be fetched leaves these reads to the
// agent; sends, streams and push configuration are refused then
// (hopCheck).
func versionCheck(ctx context.Context, c *call) *jsonrpc.Error {
	card := c.agent.card.Cached()
	if card == nil {
		_, card, _ = c.agent.card.Card(ctx)
	}
	if card == nil {
		return nil
	}
	method, header := upstreamCall(card, c)
	return hopError(agentcard.CheckMethod(card, method, header))
}

// A2A's own error codes for a hop the agent cannot serve.
const (
	codeUnsupportedOperation = -32004
	codeVersionNotSupported  = -32009
)

func hopError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	data := map[string]any{"reason": agentcard.Reason(err), "detail": err.Error()}
	var vm *agentcard.VersionMismatchError
	var mc *agentcard.MissingCapabilityError
	switch {
	case errors.As(err, &vm):
		data["wanted"], data["min"], data["max"] = vm.Wanted, vm.Min, vm.Max
		return &jsonrpc.Error{Code: codeVersionNotSupported, Message: "the agent does not support this protocol version", Data: data}
	case errors.As(err, &mc):
		data["capability"], data["missing"] = mc.Capability, mc.Missing
		return &jsonrpc.Error{Code: codeUnsupportedOperation, Message: "the agent does not declare " + mc.Capability, Data: data}
	}
	return &jsonrpc.Error{Code: codeUnsupportedOperation, Message: "the agent's card cannot serve this call", Data: data}
}

// upstreamTransport returns the transport for one agent: a tuned transport,
// wrapped with the gateway's own client-credentials token when configured.
func upstreamTransport(ctx context.Context, ac config.Agent, deps Deps) (http.RoundTripper, error) {
	base := proxy.NewTransport()
	ua := ac.UpstreamAuth
	if ua == nil {
		return base, nil
	}
	secret, err := deps.Secret(ua.ClientSecretEnv, ua.ClientSecretFile)
	if err != nil {
		return nil, fmt.Errorf("a2a front: agent %s: client secret: %w", ac.Name, err)
	}
	return proxy.ClientCredentials(ctx, base, clientcredentials.Config{
		ClientID: ua.ClientID, ClientSecret: secret,
		TokenURL: ua.TokenURL, Scopes: ua.Scopes,
	}), nil
}

// cardConfig is where the agent's card is fetched from and how it is
// rewritten for callers.
func cardConfig(ac config.Agent, u *url.URL, public string, issuers []string) agentcard.Config {
	base := u
	if ac.CardURL != "" {
		if cu, err := url.Parse(ac.CardURL); err == nil {
			base = cu
		}
	}
	urls := []*url.URL{base.ResolveReference(&url.URL{Path: "/.well-known/agent-card.json"}),
		base.ResolveReference(&url.URL{Path: "/.well-known/agent.json"})}
	if ac.CardURL != "" {
		urls = []*url.URL{base}
	}
	return agentcard.Config{
		Agent: ac.Name, CardURLs: urls, PublicURL: public,
		Grants: ac.Grants, Legacy: ac.Legacy, Refresh: ac.CardRefresh.D(), OIDCIssuers: issuers,
	}
}
