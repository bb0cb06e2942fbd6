package lab

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/capgate/capgate/gateway/a2e"
)

// Client is a minimal client of the A2E HTTP transport, for the demo and
// the tests: it opens a session, sends lines and reads the stream. It
// works against the lab host and against the gateway's A2E front alike.
type Client struct {
	// SessionID is the session the client speaks on.
	SessionID string

	hc     *http.Client
	base   string
	events chan []byte
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// NewSession opens a session at base (for example
// "http://127.0.0.1:9103/" or "http://gateway/a2e/lab/") with POST
// base+"session". A nil hc means http.DefaultClient.
func NewSession(ctx context.Context, hc *http.Client, base string) (*Client, error) {
	c := Attach(hc, base, "")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"session", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		SessionID string `json:"session_id"`
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("lab client: POST session: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.SessionID == "" {
		return nil, fmt.Errorf("lab client: POST session: no session_id (%v)", err)
	}
	c.SessionID = out.SessionID
	return c, nil
}

// Attach returns a client for an existing session, for example one opened
// through another gateway replica.
func Attach(hc *http.Client, base, sessionID string) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return &Client{SessionID: sessionID, hc: hc, base: base, events: make(chan []byte, 256)}
}

// Send POSTs one line to base+"send" and returns the HTTP status and body.
func (c *Client) Send(ctx context.Context, line []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"send", bytes.NewReader(line))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	if c.SessionID != "" {
		req.Header.Set(SessionHeader, c.SessionID)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// SendMessage encodes body under env and sends it.
func (c *Client) SendMessage(ctx context.Context, env a2e.Envelope, body a2e.Body) (int, error) {
	line, err := a2e.Encode(env, body)
	if err != nil {
		return 0, err
	}
	status, _, err := c.Send(ctx, line)
	return status, err
}

// OpenStream opens GET base+"stream" and reads its data: events in the
// background until Close. It fails unless the answer is 200.
func (c *Client) OpenStream(ctx context.Context) error {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, c.base+"stream", nil)
	if err != nil {
		cancel()
		return err
	}
	req.Header.Set(SessionHeader, c.SessionID)
	resp, err := c.hc.Do(req)
	if err != nil {
		cancel()
		return err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		return fmt.Errorf("lab client: GET stream: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	c.mu.Lock()
	c.cancel, c.done = cancel, make(chan struct{})
	c.mu.Unlock()
	go c.read(sctx, resp.Body)
	return nil
}

// read forwards the data of each event to c.events.
func (c *Client) read(ctx context.Context, body io.ReadCloser) {
	defer close(c.done)
	defer close(c.events)
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			select {
			case c.events <- bytes.Clone(bytes.TrimPrefix(data, []byte(" "))):
			case <-ctx.Done():
				return
			}
		}
	}
}

// NextLine returns the data of the next event.
func (c *Client) NextLine(ctx context.Context) ([]byte, error) {
	select {
	case line, ok := <-c.events:
		if !ok {
			return nil, ErrStreamClosed
		}
		return line, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Next returns the next event, decoded.
func (c *Client) Next(ctx context.Context) (a2e.Message, error) {
	line, err := c.NextLine(ctx)
	if err != nil {
		return a2e.Message{}, err
	}
	return a2e.DecodeLine(line, 8<<20)
}

// Close stops reading the stream.
func (c *Client) Close() error {
	c.mu.Lock()
	cancel, done := c.cancel, c.done
	c.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}
