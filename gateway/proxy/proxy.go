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
	Logger       *slog.Logger
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
		Rewrite:       p.rewrite,
		Transport:     opts.Transport,
		FlushInterval: -1,
		BufferPool:    newBufferPool(),
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandler:  opts.ErrorHandler,
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
	pr.SetXForwarded()
	stripCredentials(out.Header)
	if cc, ok := contextFrom(pr.In.Context()); ok {
		SetContextHeaders(out.Header, cc)
	}
}

// stripCredentials removes the caller's credentials and every capability
// header, whatever its case, before anything is set by the gateway.
func stripCredentials(h http.Header) {
	h.Del("Authorization")
	h.Del("Cookie")
	h.Del("Proxy-Authorization")
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "A2a-Capability") {
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
