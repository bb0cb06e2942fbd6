package lab

import (
	"net/http"
)

// serveStream sends the session's messages as server-sent events, one
// message per data: line, until the client, the session or the host goes
// away.
func (h *Host) serveStream(w http.ResponseWriter, r *http.Request) {
	s := h.session(r)
	if s == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "unknown session"})
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	for {
		for _, line := range s.take() {
			if _, err := w.Write(append(append([]byte("data: "), line...), '\n', '\n')); err != nil {
				return
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-s.notify:
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}
