package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
)

// Trusted capability headers set by the gateway on calls it authorised with
// a capability. The upstream may rely on them because the gateway removes
// any copy the caller sent.
const (
	HeaderCapabilityID         = "A2A-Capability-Id"
	HeaderCapabilityPrincipal  = "A2A-Capability-Principal"
	HeaderCapabilityHolder     = "A2A-Capability-Holder"
	HeaderCapabilityOperations = "A2A-Capability-Operations"
	// HeaderCapabilityToken is the request header in which a caller may
	// present a capability token. It is never forwarded.
	HeaderCapabilityToken = "A2A-Capability"
)

// Context is the capability context the gateway vouches for on one call.
type Context struct {
	CapabilityID string
	Principal    string
	Holder       string
	Operations   []string
}

// Outbound is what a front attaches to a request it forwards (see
// WithOutbound): the capability context the gateway vouches for, and the
// front's own changes to the outbound request. The proxy applies it to
// the copy of the request it sends, after it has removed the caller's
// credentials and capability headers, so the caller's request is never
// copied or changed for it, and nothing the caller sent can stand in for
// what the gateway sets.
type Outbound interface {
	// Vouched is the capability context the gateway vouches for on this
	// request; ok is false when it vouches for none.
	Vouched() (cc Context, ok bool)
	// Prepare makes the front's changes to out: its body (SetBody), its
	// content headers, its trace context. The capability headers are
	// the proxy's to set, from Vouched, after Prepare.
	Prepare(out *http.Request)
}

type outboundKey struct{}

// WithOutbound returns a request context carrying o for the proxy.
func WithOutbound(ctx context.Context, o Outbound) context.Context {
	return context.WithValue(ctx, outboundKey{}, o)
}

// OutboundFrom returns the Outbound ctx carries, if any; a front reads
// its own back from the context of the answer or of a failed request.
func OutboundFrom(ctx context.Context) (Outbound, bool) {
	o, ok := ctx.Value(outboundKey{}).(Outbound)
	return o, ok
}

// WithContext returns a request context carrying cc for the upstream, for
// a request the proxy forwards as it came.
func WithContext(ctx context.Context, cc Context) context.Context {
	return WithOutbound(ctx, vouchedOnly(cc))
}

// vouchedOnly is the Outbound of WithContext.
type vouchedOnly Context

func (v vouchedOnly) Vouched() (Context, bool) { return Context(v), true }

func (vouchedOnly) Prepare(*http.Request) {}

// Options configures a Proxy.
type Options struct {
	// Transport carries requests upstream. Use NewTransport, wrapped by
	// oauth2.Transport when the upstream needs the gateway's credential.
	Transport http.RoundTripper
	// ErrorHandler writes the protocol's error when the upstream fails.
	ErrorHandler func(w http.ResponseWriter, r *http.Request, err error)
	// ModifyResponse, when set, may change or replace the upstream's
	// answer before it is copied to the caller; resp.Request carries the
	// forwarded request's context. An error is answered by ErrorHandler.
	ModifyResponse func(resp *http.Response) error
	Logger         *slog.Logger
}

// Proxy forwards requests to one upstream URL.
type Proxy struct {
	rp     *httputil.ReverseProxy
	target *url.URL
}

// New returns a proxy to target. Every request is sent to target's path
// exactly: the gateway's own path (/a2a/{agent}) is not appended.
func New(target *url.URL, opts Options) *Proxy {
	p := &Proxy{target: target}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:   p.rewrite,
		Transport: opts.Transport,
		// FlushInterval 0: ReverseProxy flushes an event stream, and any
		// answer of unknown length, after every write; a unary answer of
		// known length goes out in one write when the copy ends.
		FlushInterval:  0,
		BufferPool:     newBufferPool(),
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandler:   opts.ErrorHandler,
		ModifyResponse: opts.ModifyResponse,
	}
	return p
}

// ServeHTTP forwards r. The caller must have authorised it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.rp.ServeHTTP(w, r)
}

func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Scheme = p.target.Scheme
	out.URL.Host = p.target.Host
	out.URL.Path = p.target.Path
	out.URL.RawPath = p.target.RawPath
	out.URL.RawQuery = p.target.RawQuery
	out.Host = p.target.Host
	// The caller's look-alikes go first: the forwarding headers are the
	// proxy's own (ReverseProxy has removed the caller's canonical ones).
	stripCredentials(out.Header)
	out.Trailer = nil // a caller's trailers would pass no header check
	pr.SetXForwarded()
	o, ok := OutboundFrom(pr.In.Context())
	if !ok {
		return
	}
	o.Prepare(out)
	if cc, ok := o.Vouched(); ok {
		SetContextHeaders(out.Header, cc)
	}
}

// vouchedPrefix is the normalized prefix of every capability header: the
// token a caller presents and the headers the gateway sets.
const vouchedPrefix = "a2a-capability"

// strippedNames are the normalized names of the other caller headers never
// forwarded: credentials, and the forwarding headers the proxy sets itself.
var strippedNames = [...]string{
	"authorization",
	"cookie",
	"proxy-authorization",
	"x-forwarded-for",
	"x-forwarded-host",
	"x-forwarded-proto",
}

// normalizeName folds a header name the way lenient upstream stacks do
// (CGI and WSGI environments, some proxies): case folded and every '_'
// read as '-'.
func normalizeName(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

// Stripped reports whether a caller header named name is removed before a
// request is forwarded: its normalized name is a credential, a forwarding
// header the proxy sets, or in the capability family. Look-alike spellings
// such as "A2A_Capability_Principal" are matched, because an upstream that
// folds '_' into '-' would read them as the gateway's own.
func Stripped(name string) bool {
	if !isASCII(name) {
		// Full Unicode case folding (the Kelvin sign folds to 'k'); the
		// server refuses such names, but the rule holds for any name.
		n := normalizeName(name)
		return strings.HasPrefix(n, vouchedPrefix) || slices.Contains(strippedNames[:], n)
	}
	if len(name) >= len(vouchedPrefix) && foldedEqual(name[:len(vouchedPrefix)], vouchedPrefix) {
		return true
	}
	for _, s := range strippedNames {
		if foldedEqual(name, s) {
			return true
		}
	}
	return false
}

// foldedEqual reports whether the ASCII name normalizes to norm, which is
// already normalized, without building the normalized name: this runs for
// every header of every forwarded request.
func foldedEqual(name, norm string) bool {
	if len(name) != len(norm) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_':
			c = '-'
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if c != norm[i] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// stripCredentials removes, before anything is set by the gateway, every
// caller header that Stripped names, whatever its spelling.
func stripCredentials(h http.Header) {
	for k := range h {
		if Stripped(k) {
			delete(h, k)
		}
	}
}

// SetContextHeaders sets the trusted capability headers for cc on h, for
// callers that send upstream requests themselves.
func SetContextHeaders(h http.Header, cc Context) {
	// One array holds the values, each header a one-element slice of it
	// whose capacity ends there, so that an append copies rather than
	// writes into the next header's value.
	vals := make([]string, 0, 4)
	set := func(key, v string) {
		if v != "" {
			vals = append(vals, v)
			h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		}
	}
	set(canonicalID, cc.CapabilityID)
	set(canonicalPrincipal, cc.Principal)
	set(canonicalHolder, cc.Holder)
	if len(cc.Operations) > 0 {
		set(canonicalOperations, strings.Join(cc.Operations, ","))
	}
}

// The canonical forms of the capability header names (what Header.Set
// stores them under), written out so that setting them costs no
// canonicalization per request; a test holds them equal.
const (
	canonicalID         = "A2a-Capability-Id"
	canonicalPrincipal  = "A2a-Capability-Principal"
	canonicalHolder     = "A2a-Capability-Holder"
	canonicalOperations = "A2a-Capability-Operations"
)
