package proxy

import (
	"bytes"
	"io"
	"net/http/httputil"
)

// Body returns a request body holding b, for a request whose body the
// gateway built itself (the checked, rewritten call). The proxy forwards
// such a body in the same write as the request's headers.
//
// Why: httputil.ReverseProxy wraps every outbound body in a reader of its
// own, and net/http's transport writes the headers of a body it does not
// know to be in memory in a write of their own, before the body, in case
// the body is slow to come. Every forwarded call then cost the gateway
// two write system calls and two TCP segments instead of one.
func Body(b []byte) io.ReadCloser { return &memBody{Reader: bytes.NewReader(b), b: b} }

// memBody is what Body returns: the bytes, readable once.
type memBody struct {
	*bytes.Reader
	b []byte
}

// Close does nothing: the bytes are the gateway's own.
func (*memBody) Close() error { return nil }

// restoreBody gives the outbound request a body the transport knows to
// be in memory when the inbound one came from Body; the wrapper
// ReverseProxy put around it is closed by ReverseProxy itself.
func restoreBody(pr *httputil.ProxyRequest) {
	if mb, ok := pr.In.Body.(*memBody); ok && pr.Out.Body != nil {
		pr.Out.Body = io.NopCloser(bytes.NewReader(mb.b))
	}
}
