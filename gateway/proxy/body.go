package proxy

import (
	"bytes"
	"io"
	"net/http"
)

// SetBody makes b the body of out, an outbound request the proxy is
// preparing (see Outbound), with its Content-Length, in a form the
// transport knows to be in memory: the body then goes upstream in the same
// write as the request's headers.
//
// Why: httputil.ReverseProxy wraps every outbound body in a reader of its
// own, and net/http's transport writes the headers of a body it does not
// know to be in memory in a write of their own, before the body, in case
// the body is slow to come. Every forwarded call then cost the gateway
// two write system calls and two TCP segments instead of one.
func SetBody(out *http.Request, b []byte) {
	out.ContentLength = int64(len(b))
	out.Header.Del("Content-Length") // the transport writes the field's value
	if len(b) == 0 {
		out.Body = nil
		return
	}
	out.Body = io.NopCloser(bytes.NewReader(b))
}
