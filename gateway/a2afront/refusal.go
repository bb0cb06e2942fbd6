package a2afront

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// What the gateway answers itself reaches each caller in the shapes its
// generation of A2A reads. A call that speaks A2A v1.0 (its A2A-Version
// header, or its method name's own generation) gets error.data as v1.0's
// list of typed details (jsonrpc.Error.Detailed), with capgate's code,
// reason, detail and member in an ErrorInfo's metadata; any other call
// gets capgate's data object as it is. A caller that asked for a stream
// gets the answer as a stream of one event (jsonrpc.WriteEventStream): a
// stream reader looks for events only, and would lose a plain JSON
// answer; a refusal mid-stream already ends the stream with such an
// event (package answer).

// speaksV1 reports whether an A2A version, as a call speaks it, is v1.0.
func speaksV1(version string) bool {
	return version == agentcard.TranslatedVersion || version == "1" || strings.HasPrefix(version, "1.0.")
}

// callerShape returns resp with its error in the shape of the generation
// a call of method under h speaks. A response without error is returned
// as it is.
func callerShape(method string, h http.Header, resp jsonrpc.Response) jsonrpc.Response {
	if resp.Error != nil && speaksV1(agentcard.SpokenVersion(method, h.Get("A2A-Version"))) {
		resp.Error = resp.Error.Detailed()
	}
	return resp
}

// shaped is callerShape for a decoded call.
func (c *call) shaped(resp jsonrpc.Response) jsonrpc.Response {
	return callerShape(c.req.Method, c.http.Header, resp)
}

// wantsStream reports whether the caller of c asked for a stream: the
// method streams, or the request accepts text/event-stream.
func (c *call) wantsStream() bool {
	if c.req.Err == nil && jsonrpc.IsStreaming(c.req.Method) {
		return true
	}
	return acceptsEventStream(c.http.Header.Values("Accept"))
}

// acceptsEventStream reports whether Accept headers name text/event-stream
// with a quality above zero.
func acceptsEventStream(accept []string) bool {
	for _, v := range accept {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err != nil || q > 0 {
				return true
			}
		}
	}
	return false
}

// writeAnswered writes the answer the front gave c itself, before anything
// was forwarded: in the caller's generation's shape, as a stream of one
// event when the caller asked for a stream, else as plain JSON.
func writeAnswered(w http.ResponseWriter, c *call, resp jsonrpc.Response) {
	resp = c.shaped(resp)
	if c.wantsStream() {
		_ = jsonrpc.WriteEventStream(w, resp)
		return
	}
	_ = jsonrpc.WriteResponse(w, http.StatusOK, resp)
}
