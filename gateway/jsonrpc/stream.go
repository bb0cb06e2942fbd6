package jsonrpc

import (
	"net/http"
	"slices"
)

// WriteEventStream writes one response as a whole server-sent event
// stream, for a caller that asked for a stream: status 200, Content-Type
// text/event-stream, one event whose data is the response, then the end
// of the stream. A client reading a stream reads only events, so an
// answer sent there as plain JSON would be lost on it; this is how a
// refusal decided before anything was forwarded reaches it. When resp
// cannot be marshalled an internal error with the same id is sent
// instead. The error is the one from writing to w.
func WriteEventStream(w http.ResponseWriter, resp Response) error {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	event := slices.Concat([]byte("data: "), marshalOne(resp), []byte("\n\n"))
	_, err := w.Write(event)
	return err
}
