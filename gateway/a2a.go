package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// call is one decoded JSON-RPC request on its way through the gateway.
type call struct {
	agent     *agent
	principal *authn.Principal
	req       jsonrpc.Request
	canonical string
	http      *http.Request
}

// outcome is what the gateway decided for one call: either a response
// answered by the gateway itself, or a request element to forward with the
// capability context the gateway vouches for.
type outcome struct {
	resp    *jsonrpc.Response
	forward []byte
	cc      *proxy.Context
}

func answer(resp jsonrpc.Response) outcome { return outcome{resp: &resp} }

func fail(id json.RawMessage, e *jsonrpc.Error) outcome {
	return answer(jsonrpc.NewError(id, e))
}

// serveA2A is POST /a2a/{agent}: read and decode the body once, decide
// every call, answer locally what was refused, forward what was allowed.
func (g *Gateway) serveA2A(w http.ResponseWriter, r *http.Request) {
	a, ok := g.agents[chi.URLParam(r, "agent")]
	if !ok {
		jsonrpc.WriteResponse(w, http.StatusNotFound, jsonrpc.NewError(nil, &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest, Message: "unknown agent",
			Data: map[string]string{"reason": "unknown_agent"},
		}))
		return
	}
	p, ok := authn.PrincipalFrom(r.Context())
	if !ok {
		// The middleware guarantees a principal; refuse rather than guess.
		http.Error(w, "unauthenticated", http.StatusUnauthorized)
		return
	}
	body, err := jsonrpc.ReadBody(http.MaxBytesReader(w, r.Body, g.limits.MaxBodyBytes+1), g.limits)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, jsonrpc.ErrBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		jsonrpc.WriteResponse(w, status, jsonrpc.NewError(nil, jsonrpc.ErrorFor(err)))
		return
	}
	reqs, batch, err := jsonrpc.Decode(body, g.limits)
	if err != nil {
		jsonrpc.WriteResponse(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.ErrorFor(err)))
		return
	}
	if !batch {
		g.serveOne(w, r, &call{agent: a, principal: p, req: reqs[0], http: r})
		return
	}
	g.serveBatch(w, r, a, p, reqs)
}

// serveOne decides one call and either answers it or proxies it, streaming
// the upstream's answer through.
func (g *Gateway) serveOne(w http.ResponseWriter, r *http.Request, c *call) {
	start := g.now()
	dctx, span := g.span(r.Context(), "decide", attribute.String("rpc.method", c.req.Method))
	out := g.decide(dctx, c)
	var refusal *jsonrpc.Error
	if out.resp != nil {
		refusal = out.resp.Error
	}
	endWith(span, refusal)
	g.observeDecision(c, out, start)
	if out.resp != nil {
		if c.req.IsNotification() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		jsonrpc.WriteResponse(w, http.StatusOK, *out.resp)
		return
	}
	ctx := withRequestID(r.Context(), c.req.ID)
	if out.cc != nil {
		ctx = proxy.WithContext(ctx, *out.cc)
	}
	if jsonrpc.IsStreaming(c.req.Method) {
		extendWriteDeadline(w, g.now().Add(g.cfg.Listen.StreamTimeout.D()))
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.Limits.UpstreamTimeout.D())
		defer cancel()
	}
	out2 := r.Clone(ctx)
	out2.Body = http.NoBody
	if len(out.forward) > 0 {
		out2.Body = io.NopCloser(bytes.NewReader(out.forward))
	}
	out2.ContentLength = int64(len(out.forward))
	out2.Header.Set("Content-Length", strconv.Itoa(len(out.forward)))
	g.proxy(w, out2, c)
}

// proxy forwards one decided call and records the hop.
func (g *Gateway) proxy(w http.ResponseWriter, r *http.Request, c *call) {
	ctx, hop := withHopOutcome(r.Context())
	ctx, span := g.tracer.Start(ctx, "upstream", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("capgate.agent", c.agent.cfg.Name)))
	defer span.End()
	injectTrace(ctx, r.Header)
	start := g.now()
	c.agent.proxy.ServeHTTP(w, r.WithContext(ctx))
	g.metrics.ObserveUpstream(c.agent.cfg.Name, g.now().Sub(start))
	outcome := "ok"
	if hop.failed {
		outcome = "upstream_error"
		span.SetStatus(codes.Error, outcome)
	}
	g.metrics.ObserveRequest(c.agent.cfg.Name, c.canonical, outcome)
}

// decide routes one call by its method. Methods the gateway does not know
// are refused, never forwarded: an unknown method could be a skill call in
// disguise.
func (g *Gateway) decide(ctx context.Context, c *call) outcome {
	if c.req.Err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(c.req.Err))
	}
	canonical, known := jsonrpc.MethodGeneration(c.req.Method)
	if !known {
		return fail(c.req.ID, &jsonrpc.Error{
			Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + c.req.Method,
		})
	}
	c.canonical = canonical
	if h, ok := g.methods[canonical]; ok {
		return h(ctx, c)
	}
	return outcome{forward: c.req.Raw, cc: callerContext(c)}
}

// callerContext is the context vouched for on a call forwarded on the
// caller's own authority: who the caller is, so the agent can keep each
// principal's tasks apart.
func callerContext(c *call) *proxy.Context {
	return &proxy.Context{Principal: c.principal.ID, Holder: c.principal.ID}
}

// extendWriteDeadline lets a stream outlive the listener's write timeout,
// bounded by the stream timeout instead.
func extendWriteDeadline(w http.ResponseWriter, t time.Time) {
	_ = http.NewResponseController(w).SetWriteDeadline(t)
}

type requestIDKey struct{}

func withRequestID(ctx context.Context, id json.RawMessage) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func requestIDFrom(ctx context.Context) json.RawMessage {
	id, _ := ctx.Value(requestIDKey{}).(json.RawMessage)
	return id
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
