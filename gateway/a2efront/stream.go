package a2efront

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/capgate/capgate/gateway/a2e"
)

// attachMarker is queued on a session's mailbox when the host's session
// is opened, to wake the replica holding the stream. It is never written
// to the caller (no A2E message starts with a NUL byte).
var attachMarker = []byte("\x00attach")

// serveStream answers GET /a2e/{host}/stream: the host's event stream for
// the mapped upstream session, with every handshake/resp rewritten and
// every response counted off max_parallel, merged with the gateway's own
// messages for the session (from any replica). Until an authenticated
// handshake has opened the host's session, only the gateway's messages
// flow. The stream ends with the host's, when the caller leaves, or at
// CreatedAt+SessionTTL.
func (f *Front) serveStream(w http.ResponseWriter, r *http.Request) {
	h, s, ctx, ok := f.sessionFor(w, r)
	if !ok {
		return
	}
	// No stream outlives the longest life its session can have.
	ctx, cancel := context.WithTimeout(ctx, s.CreatedAt.Add(f.cfg.SessionTTL).Sub(f.deps.Now()))
	defer cancel()
	sub, err := f.deps.Sessions.Subscribe(ctx, s.ID)
	if err != nil {
		f.deps.Logger.Error("a2efront: subscribing to a session", "session", sessionRef(s.ID), "error", err)
		writeJSON(w, http.StatusServiceUnavailable, transportError{Error: "unavailable", Retryable: true})
		return
	}
	defer sub.Close()
	var body io.ReadCloser
	if s.UpstreamID != "" {
		if body, err = f.openUpstreamStream(ctx, h, s.UpstreamID); err != nil {
			f.deps.Logger.Warn("a2efront: opening the host's stream", "host", h.Name, "session", sessionRef(s.ID), "error", err)
			writeJSON(w, http.StatusBadGateway, transportError{Error: "upstream_unavailable", Retryable: !errors.Is(err, ErrUpstreamSessionGone)})
			return
		}
		defer body.Close()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	if body == nil {
		if body, s = f.awaitUpstream(ctx, h, s.ID, w, rc, sub.C()); body == nil {
			return
		}
		defer body.Close()
	}
	events := make(chan []byte)
	go f.readEvents(ctx, body, events)
	f.pump(ctx, h, s, w, rc, events, sub.C())
}

// awaitUpstream relays the gateway's messages for a session the host does
// not know yet, until a handshake opens the host's session; it then
// returns the host's stream and the session as the handshake left it, or
// nil when the stream should end.
func (f *Front) awaitUpstream(ctx context.Context, h *upstream, id string, w io.Writer, rc *http.ResponseController, own <-chan []byte) (io.ReadCloser, Session) {
	for {
		var msg []byte
		select {
		case m, ok := <-own:
			if !ok {
				return nil, Session{}
			}
			msg = m
		case <-ctx.Done():
			return nil, Session{}
		}
		if !bytes.Equal(msg, attachMarker) {
			if writeEvent(w, msg) != nil || rc.Flush() != nil {
				return nil, Session{}
			}
		}
		s, err := f.deps.Sessions.Get(ctx, id)
		switch {
		case err != nil:
			f.deps.Logger.Warn("a2efront: re-reading a session for its stream", "session", sessionRef(id), "error", err)
			return nil, Session{}
		case s.UpstreamID == "":
			continue
		}
		body, err := f.openUpstreamStream(ctx, h, s.UpstreamID)
		if err != nil {
			f.deps.Logger.Warn("a2efront: opening the host's stream", "host", h.Name, "session", sessionRef(id), "error", err)
			return nil, Session{}
		}
		return body, s
	}
}

// pump writes events from the host and the gateway until either source
// ends or the caller goes away. It is the only writer of w. Before each
// event of the host the freeze is checked again: once the host or the
// session's principal is frozen, the event is replaced by the refusal
// (frozenEvent) and the stream ends.
func (f *Front) pump(ctx context.Context, h *upstream, s Session, w io.Writer, rc *http.ResponseController, events, own <-chan []byte) {
	for {
		var line []byte
		select {
		case data, ok := <-events:
			if !ok {
				return
			}
			if refusal, stop := f.frozenEvent(ctx, h, s); stop {
				if refusal != nil && writeEvent(w, refusal) == nil {
					_ = rc.Flush()
				}
				return
			}
			line = f.fromHost(ctx, h, s.ID, data)
		case msg, ok := <-own:
			if !ok {
				return
			}
			if !bytes.Equal(msg, attachMarker) {
				line = msg
			}
		case <-ctx.Done():
			return
		}
		if line == nil {
			continue
		}
		if writeEvent(w, line) != nil || rc.Flush() != nil {
			return
		}
	}
}

// fromHost vets one event from the host: a line that does not decode is
// dropped; handshake/resp is rewritten; a response (any message with a
// req_id but invoke/event) completes its request for max_parallel.
func (f *Front) fromHost(ctx context.Context, h *upstream, id string, data []byte) []byte {
	m, err := a2e.DecodeLine(data, f.cfg.MaxEventBytes)
	if err != nil {
		f.deps.Logger.Warn("a2efront: dropping an event the host sent", "host", h.Name, "session", sessionRef(id), "error", err)
		return nil
	}
	if m.Type == a2e.TypeHandshakeResp {
		return f.rewriteHandshake(ctx, h, id, m)
	}
	if reqID := m.ReqID(); reqID != "" && m.Type != a2e.TypeInvokeEvent {
		if _, err := f.deps.Sessions.Complete(ctx, id, reqID); err != nil {
			f.deps.Logger.Warn("a2efront: completing a request", "session", sessionRef(id), "error", err)
		}
	}
	return m.Raw
}

// readEvents parses server-sent events from body and sends the data of
// each (data: lines joined by "\n") to out, which it closes at the end.
func (f *Front) readEvents(ctx context.Context, body io.Reader, out chan<- []byte) {
	defer close(out)
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), f.cfg.MaxEventBytes+64)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				select {
				case out <- data:
				case <-ctx.Done():
					return
				}
			}
			data = nil
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[5:], []byte(" "))...)
			if len(data) > f.cfg.MaxEventBytes {
				f.deps.Logger.Warn("a2efront: the host sent an event larger than max_event_bytes; closing the stream")
				return
			}
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		f.deps.Logger.Warn("a2efront: reading the host's stream", "error", err)
	}
}

// writeEvent writes line as one SSE event on one data: line.
func writeEvent(w io.Writer, line []byte) error {
	if bytes.ContainsAny(line, "\r\n") {
		var buf bytes.Buffer
		if err := json.Compact(&buf, line); err != nil {
			return err
		}
		line = buf.Bytes()
	}
	buf := make([]byte, 0, len(line)+8)
	buf = append(append(append(buf, "data: "...), line...), '\n', '\n')
	_, err := w.Write(buf)
	return err
}
