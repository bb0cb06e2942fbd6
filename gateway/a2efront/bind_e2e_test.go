package a2efront_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/a2efront"
)

// bearer is an http.Client whose requests carry key as a bearer token.
func bearer(key string) *http.Client {
	return &http.Client{Transport: bearerTransport(key)}
}

type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestCredentialsMustMatchSessionPrincipal: the session id alone still
// works (a stock A2E client), the principal's own credentials work, but
// credentials of anyone else, or credentials that do not authenticate,
// get 401 on /send and /stream and nothing reaches the host.
func TestCredentialsMustMatchSessionPrincipal(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools")
	echo := func(hc *http.Client) (int, string) {
		b := lab.Attach(hc, w.base(0), c.SessionID)
		return sendRaw(t, b, string(mustEncode(t, nextID(), &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}})))
	}
	for name, hc := range map[string]*http.Client{"another principal": bearer(bobKey), "a bad key": bearer("no-such-key")} {
		if status, body := echo(hc); status != http.StatusUnauthorized || !strings.Contains(body, "unauthorized") {
			t.Errorf("%s on /send: %d %s", name, status, body)
		}
		if err := lab.Attach(hc, w.base(0), c.SessionID).OpenStream(testCtx(t)); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s on /stream: %v", name, err)
		}
	}
	if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 0 {
		t.Fatalf("host saw %d tool calls", n)
	}
	if status, body := echo(nil); status != http.StatusAccepted {
		t.Errorf("session id alone: %d %s", status, body)
	}
	if status, body := echo(bearer(aliceKey)); status != http.StatusAccepted {
		t.Errorf("the principal's own key: %d %s", status, body)
	}
	if got := len(w.audit.events(a2efront.EventRefusal)); got != 4 {
		t.Errorf("%d refusals audited, want 4", got)
	}
	assertNoSessionID(t, w, c.SessionID)
}

// TestHandshakeCredentialsMustAgree: a handshake whose request carries
// bob's credentials but alice's auth_token fails, and the host sees
// nothing.
func TestHandshakeCredentialsMustAgree(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c, err := lab.NewSession(testCtx(t), bearer(bobKey), w.base(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.OpenStream(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if resp, m := handshake(t, c, aliceKey, "tools"); resp.OK || resp.Reason != a2e.ReasonAuthFailed {
		t.Fatalf("handshake/resp = %s, want auth_failed", m.Raw)
	}
	if n := w.hostCalls.count("/session") + w.lab.Recorder().Count(); n != 0 {
		t.Errorf("host saw %d requests", n)
	}
}

// TestRequireCredentials: a host that requires credentials refuses
// /session, /send and /stream without them, and nothing reaches it.
func TestRequireCredentials(t *testing.T) {
	w := newWorld(t, worldOptions{config: func(c *a2efront.Config) { c.Hosts[0].RequireCredentials = true }})
	if _, err := lab.NewSession(testCtx(t), nil, w.base(0)); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("POST session without credentials: %v", err)
	}
	c, err := lab.NewSession(testCtx(t), bearer(aliceKey), w.base(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.OpenStream(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	handshake(t, c, aliceKey, "tools")
	bare := lab.Attach(nil, w.base(0), c.SessionID)
	if status, body := sendRaw(t, bare, string(mustEncode(t, nextID(), &a2e.ToolCallReq{ToolName: "echo"}))); status != http.StatusUnauthorized {
		t.Errorf("send without credentials: %d %s", status, body)
	}
	if err := bare.OpenStream(testCtx(t)); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("stream without credentials: %v", err)
	}
	if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 0 {
		t.Errorf("host saw %d tool calls", n)
	}
	send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "ok"}}, http.StatusAccepted)
	assertNoSessionID(t, w, c.SessionID)
}

// TestNewRefusesUnsafeDeps: a host requiring credentials needs a request
// authenticator, and a record key must be long enough.
func TestNewRefusesUnsafeDeps(t *testing.T) {
	tests := []struct {
		name    string
		require bool
		authReq bool
		key     []byte
		wantErr error
	}{
		{"credentials required, no request authenticator", true, false, nil, a2efront.ErrInvalidConfig},
		{"credentials required, with authenticator", true, true, nil, nil},
		{"short record key", false, false, []byte("short"), a2efront.ErrInvalidConfig},
		{"good record key", false, false, testRecordKey, nil},
	}
	auth := authenticator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deps := a2efront.Deps{Authenticate: auth.AuthenticateToken, Policy: fixedPolicy{quickstartPolicy(t)},
				Sessions: a2efront.NewMemoryStore(nil), RecordKey: tt.key}
			if tt.authReq {
				deps.AuthenticateRequest = auth.AuthenticateRequest
			}
			_, err := a2efront.New(a2efront.Config{Hosts: []a2efront.Host{{Name: "lab", URL: "http://127.0.0.1:1/", AuthToken: "s", RequireCredentials: tt.require}}}, deps)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("New = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
