package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway/client"
)

// TestRedirectsAreNotFollowed: a gateway (or something in front of it) that
// answers with a redirect must not get the body, which carries capability
// tokens, or the credential re-sent elsewhere.
func TestRedirectsAreNotFollowed(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var elsewhere atomic.Int32
			evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
			defer evil.Close()
			g := newFakeGateway(t, func(w http.ResponseWriter, _ map[string]json.RawMessage) {
				w.Header().Set("Location", evil.URL+"/steal")
				w.WriteHeader(status)
			})
			callers := &http.Client{}
			c := newClient(t, g.srv.URL, client.Options{Credential: "secret", HTTPClient: callers})
			_, err := c.Invoke(context.Background(), testCap(), "retrieve_document", nil)
			if !errors.Is(err, client.ErrRedirect) {
				t.Errorf("err = %v, want ErrRedirect", err)
			}
			if n := elsewhere.Load(); n != 0 {
				t.Errorf("the redirect target got %d requests", n)
			}
			if callers.CheckRedirect != nil {
				t.Error("the caller's http.Client was changed")
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	g := newFakeGateway(t, result(map[string]any{}))
	url := g.srv.URL
	g.srv.Close()
	_, err := newClient(t, url, client.Options{}).Invoke(context.Background(), testCap(), "retrieve_document", nil)
	if !errors.Is(err, client.ErrTransport) || errors.Is(err, client.ErrRPC) {
		t.Errorf("closed gateway: err = %v, want ErrTransport", err)
	}

	g = newFakeGateway(t, result(map[string]any{}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = newClient(t, g.srv.URL, client.Options{}).Invoke(ctx, testCap(), "retrieve_document", nil)
	if !errors.Is(err, client.ErrTransport) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want ErrTransport wrapping context.Canceled", err)
	}
}

func TestResponseSizeLimit(t *testing.T) {
	big := strings.Repeat("x", 2048)
	g := newFakeGateway(t, result(map[string]any{"content": big}))
	_, err := newClient(t, g.srv.URL, client.Options{MaxResponseBytes: 1024}).Invoke(context.Background(), testCap(), "retrieve_document", nil)
	if !errors.Is(err, client.ErrResponseTooLarge) {
		t.Errorf("err = %v, want ErrResponseTooLarge", err)
	}
	raw, err := newClient(t, g.srv.URL, client.Options{MaxResponseBytes: 4096}).Invoke(context.Background(), testCap(), "retrieve_document", nil)
	if err != nil || !bytes.Contains(raw, []byte(big)) {
		t.Errorf("within the limit: err = %v", err)
	}
}

// TestTokenNeverPrinted: formatting or logging a Capability must not show
// its token; JSON, which hands it on, must.
func TestTokenNeverPrinted(t *testing.T) {
	capb := testCap()
	capb.Token = "eyJhbGciOiJFZERTQSJ9.SECRET-PAYLOAD.SIG"
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("got", "capability", capb)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("got", "capability", capb, "list", []client.Capability{capb})
	for name, s := range map[string]string{
		"%v": fmt.Sprintf("%v", capb), "%+v": fmt.Sprintf("%+v", capb), "%#v": fmt.Sprintf("%#v", capb),
		"%s": fmt.Sprintf("%s", capb), "slice %v": fmt.Sprintf("%v", []client.Capability{capb}),
		"pointer %v": fmt.Sprintf("%v", &capb), "slog": logged.String(),
	} {
		if strings.Contains(s, "SECRET") {
			t.Errorf("%s shows the token: %s", name, s)
		}
		if !strings.Contains(s, "cap_parent") {
			t.Errorf("%s does not show the id: %s", name, s)
		}
	}
	b, _ := json.Marshal(capb)
	if !bytes.Contains(b, []byte("SECRET")) {
		t.Error("JSON lost the token")
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name, url, agent string
		opts             client.Options
		wantErr          error
	}{
		{"ok", "http://127.0.0.1:8080", "documents", client.Options{}, nil},
		{"ok with prefix and slash", "https://gw.example.com/capgate/", "documents", client.Options{}, nil},
		{"relative", "/a2a", "documents", client.Options{}, client.ErrInvalidOptions},
		{"no scheme", "gw.example.com:8080", "documents", client.Options{}, client.ErrInvalidOptions},
		{"ftp", "ftp://gw.example.com", "documents", client.Options{}, client.ErrInvalidOptions},
		{"user info", "https://alice:pw@gw.example.com", "documents", client.Options{}, client.ErrInvalidOptions},
		{"query", "https://gw.example.com/?x=1", "documents", client.Options{}, client.ErrInvalidOptions},
		{"fragment", "https://gw.example.com/#x", "documents", client.Options{}, client.ErrInvalidOptions},
		{"path in agent", "https://gw.example.com", "../admin", client.Options{}, client.ErrInvalidOptions},
		{"upper-case agent", "https://gw.example.com", "Documents", client.Options{}, client.ErrInvalidOptions},
		{"empty agent", "https://gw.example.com", "", client.Options{}, client.ErrInvalidOptions},
		{"header injection", "https://gw.example.com", "documents", client.Options{Credential: "k\r\nX-Admin: 1"}, client.ErrInvalidOptions},
		{"negative limit", "https://gw.example.com", "documents", client.Options{MaxResponseBytes: -1}, client.ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.New(tt.url, tt.agent, tt.opts)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestEndpoints(t *testing.T) {
	c, _ := client.New("https://gw.example.com/capgate/", "documents", client.Options{})
	if c.Endpoint() != "https://gw.example.com/capgate/a2a/documents" {
		t.Errorf("Endpoint = %s", c.Endpoint())
	}
	s, err := c.For("summarizer")
	if err != nil || s.Endpoint() != "https://gw.example.com/capgate/a2a/summarizer" {
		t.Errorf("For: %v %v", s, err)
	}
	if _, err := c.For("bad/agent"); !errors.Is(err, client.ErrInvalidOptions) {
		t.Errorf("For(bad/agent): %v", err)
	}
	e, err := client.NewEndpoint("http://127.0.0.1:8080/a2a/documents", client.Options{})
	if err != nil || e.Endpoint() != "http://127.0.0.1:8080/a2a/documents" {
		t.Fatalf("NewEndpoint: %v", err)
	}
	if _, err := e.For("summarizer"); !errors.Is(err, client.ErrInvalidOptions) {
		t.Errorf("For on an endpoint client: %v", err)
	}
}

// localCase is a call the client must refuse without sending anything.
type localCase struct {
	name string
	call func(*client.Client) error
}

func localCases() []localCase {
	ctx := context.Background()
	two := []client.Capability{testCap(), testCap()}
	return []localCase{
		{"request without grants", func(c *client.Client) error { _, err := c.Request(ctx, client.RequestParams{}); return err }},
		{"invoke without skill", func(c *client.Client) error { _, err := c.Invoke(ctx, testCap(), "", nil); return err }},
		{"invoke without id", func(c *client.Client) error {
			_, err := c.Invoke(ctx, client.Capability{Token: "t"}, "retrieve_document", nil)
			return err
		}},
		{"invoke with unencodable args", func(c *client.Client) error {
			_, err := c.Invoke(ctx, testCap(), "retrieve_document", map[string]any{"x": func() {}})
			return err
		}},
		{"attenuate without id", func(c *client.Client) error {
			_, err := c.Attenuate(ctx, client.Capability{}, client.Constraints{})
			return err
		}},
		{"revoke without id", func(c *client.Client) error { return c.Revoke(ctx, client.Capability{}) }},
		{"delegate nothing", func(c *client.Client) error { _, err := c.Delegate(ctx, client.Delegation{Text: "x"}); return err }},
		{"delegate streaming", func(c *client.Client) error {
			_, err := c.Delegate(ctx, client.Delegation{Method: "message/stream", Capabilities: two[:1]})
			return err
		}},
		{"delegate unknown method", func(c *client.Client) error {
			_, err := c.Delegate(ctx, client.Delegation{Method: "a2a/skill/invoke", Capabilities: two[:1]})
			return err
		}},
		{"delegate the same id twice", func(c *client.Client) error {
			_, err := c.Delegate(ctx, client.Delegation{Capabilities: two})
			return err
		}},
		{"attenuation for a capability not delegated", func(c *client.Client) error {
			_, err := c.Delegate(ctx, client.Delegation{Capabilities: two[:1], Attenuations: map[string]client.Constraints{"cap_other": {}}})
			return err
		}},
		{"message that is not JSON", func(c *client.Client) error {
			_, err := c.Delegate(ctx, client.Delegation{Capabilities: two[:1], Message: json.RawMessage(`{"role":`)})
			return err
		}},
		{"too many delegated", func(c *client.Client) error {
			many := make([]client.Capability, client.MaxDelegated+1)
			for i := range many {
				many[i].ID = fmt.Sprint("cap_", i)
			}
			_, err := c.Delegate(ctx, client.Delegation{Capabilities: many})
			return err
		}},
	}
}

// TestArgumentsRefusedLocally: a call that cannot be right is refused
// before anything is sent.
func TestArgumentsRefusedLocally(t *testing.T) {
	for _, tt := range localCases() {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGateway(t, result(map[string]any{}))
			if err := tt.call(newClient(t, g.srv.URL, client.Options{})); !errors.Is(err, client.ErrInvalidArgument) {
				t.Errorf("err = %v, want ErrInvalidArgument", err)
			}
			if n := len(g.requests()); n != 0 {
				t.Errorf("gateway got %d requests, want none", n)
			}
		})
	}
}

// TestConcurrentCallsMatchTheirAnswers: ids are unique per call, and each
// caller gets the answer to its own request.
func TestConcurrentCallsMatchTheirAnswers(t *testing.T) {
	g := newFakeGateway(t, func(w http.ResponseWriter, req map[string]json.RawMessage) {
		var p struct {
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(req["params"], &p)
		result(map[string]string{"echo": p.Arguments["n"]})(w, req)
	})
	c := newClient(t, g.srv.URL, client.Options{})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			raw, err := c.Invoke(context.Background(), testCap(), "retrieve_document", map[string]any{"n": fmt.Sprint(i)})
			if err != nil || string(raw) != fmt.Sprintf(`{"echo":"%d"}`, i) {
				t.Errorf("call %d: %s %v", i, raw, err)
			}
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for _, r := range g.requests() {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(r.Body, &req)
		if ids[string(req.ID)] {
			t.Errorf("id %s used twice", req.ID)
		}
		ids[string(req.ID)] = true
	}
}
