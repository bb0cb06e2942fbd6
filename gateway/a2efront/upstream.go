package a2efront

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// maxUpstreamReply bounds the body of a host's answer to /session or /send.
const maxUpstreamReply = 64 << 10

// endpoint resolves one of the transport paths against the host's base.
func (h *upstream) endpoint(name string) string {
	return h.base.JoinPath(name).String()
}

// createUpstream opens a session on the host and returns its id.
func (f *Front) createUpstream(ctx context.Context, h *upstream) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.UpstreamTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint("session"), nil)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	resp, err := f.deps.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: POST session: %w", ErrUpstream, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamReply))
	if err != nil || resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%w: POST session: status %d (%v)", ErrUpstream, resp.StatusCode, err)
	}
	var out struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.SessionID == "" || len(out.SessionID) > 256 {
		return "", fmt.Errorf("%w: POST session: no usable session_id", ErrUpstream)
	}
	return out.SessionID, nil
}

// sendUpstream POSTs one line to the host's /send for upstream session id.
func (f *Front) sendUpstream(ctx context.Context, h *upstream, id string, line []byte) error {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.UpstreamTimeout)
	defer cancel()
	body := append(bytes.Clone(line), '\n')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint("send"), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set(SessionHeader, id)
	resp, err := f.deps.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: POST send: %w", ErrUpstream, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxUpstreamReply))
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: POST send: status 404", ErrUpstreamSessionGone)
	}
	return fmt.Errorf("%w: POST send: status %d", ErrUpstream, resp.StatusCode)
}

// openUpstreamStream opens the host's event stream for upstream session
// id. The caller closes the body; ctx ends the stream.
func (f *Front) openUpstreamStream(ctx context.Context, h *upstream, id string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.endpoint("stream"), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(SessionHeader, id)
	resp, err := f.deps.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: GET stream: %w", ErrUpstream, err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: GET stream: status 404", ErrUpstreamSessionGone)
	case resp.StatusCode != http.StatusOK || mt != "text/event-stream":
		resp.Body.Close()
		return nil, fmt.Errorf("%w: GET stream: status %d, content type %q", ErrUpstream, resp.StatusCode, mt)
	}
	return resp.Body, nil
}
