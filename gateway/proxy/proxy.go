package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
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

type ctxKey struct{}

// WithContext returns a request context carrying cc for the upstream.
func WithContext(ctx context.Context, cc Context) context.Context {
	return context.WithValue(ctx, ctxKey{}, cc)
}

func contextFrom(ctx context.Context) (Context, bool) {
	cc, ok := ctx.Value(ctxKey{}).(Context)
	return cc, ok
}

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
	restoreBody(pr)
	pr.SetXForwarded()
	stripCredentials(out.Header)
	if cc, ok := contextFrom(pr.In.Context()); ok {
		SetContextHeaders(out.Header, cc)
	}
}

// vouchedPrefix is the normalized prefix of every capability header: the
// token a caller presents and the headers the gateway sets.
const vouchedPrefix = "a2a-capability"

// strippedNames are the normalized names of the other caller headers never
// forwarded: credentials, and the forwarding headers the proxy sets itself.
var strippedNames = map[string]bool{
	"authorization":       true,
	"cookie":              true,
	"proxy-authorization": true,
	"x-forwarded-for":     true,
	"x-forwarded-host":    true,
	"x-forwarded-proto":   true,
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
	n := normalizeName(name)
	return strings.HasPrefix(n, vouchedPrefix) || strippedNames[n]
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
	if cc.CapabilityID != "" {
		h.Set(HeaderCapabilityID, cc.CapabilityID)
	}
	if cc.Principal != "" {
		h.Set(HeaderCapabilityPrincipal, cc.Principal)
	}
	if cc.Holder != "" {
		h.Set(HeaderCapabilityHolder, cc.Holder)
	}
	if len(cc.Operations) > 0 {
		h.Set(HeaderCapabilityOperations, strings.Join(cc.Operations, ","))
	}
}
