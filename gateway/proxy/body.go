package proxy

import (
	"bytes"
	"io"
	"net/http"
)

// SetBody makes b the body of out, an outbound request the proxy is
// preparing (see Outbound), with its Content-Length, in a form the
// transport knows to be in memory: the body then goes upstream in the same
// write as the request's headers. What described the caller's body goes:
// its transfer coding, its trailers (which a chunked caller could fill
// with credentials or capability headers no header check sees) and its
// representation headers (an encoding, a digest or a range of bytes the
// agent would no longer receive).
//
// Why one write: httputil.ReverseProxy wraps every outbound body in a
// reader of its own, and net/http's transport writes the headers of a
// body it does not know to be in memory in a write of their own, before
// the body, in case the body is slow to come. Every forwarded call then cost the gateway
// two write system calls and two TCP segments instead of one.
func SetBody(out *http.Request, b []byte) {
	out.ContentLength = int64(len(b))
	out.TransferEncoding, out.Trailer = nil, nil
	for _, k := range callerBodyHeaders {
		delete(out.Header, k)
	}
	if len(b) == 0 {
		out.Body = nil
		return
	}
	out.Body = io.NopCloser(bytes.NewReader(b))
}

// callerBodyHeaders are the headers, in canonical form, that describe the
// caller's body and not one the gateway built; the transport writes
// Content-Length, Transfer-Encoding and Trailer from the request's fields.
var callerBodyHeaders = [...]string{
	"Content-Length", "Transfer-Encoding", "Trailer", "Content-Encoding", "Content-Md5",
	"Digest", "Content-Digest", "Repr-Digest", "Content-Range",
}

// SetJSONCall makes out the POST of the JSON-RPC body b the gateway
// decided. The caller's encodings are not asked for: the gateway's answer
// pipeline reads the answer, and the transport asks for and undoes any
// compression itself.
func SetJSONCall(out *http.Request, b []byte) {
	out.Method = http.MethodPost
	SetBody(out, b)
	out.Header.Set("Content-Type", "application/json")
	out.Header.Del("Accept-Encoding")
}
