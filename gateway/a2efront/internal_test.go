package a2efront

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/platform"
)

func TestNarrow(t *testing.T) {
	offered := map[string]bool{"tools": true, "memory": true, "env": true}
	tests := []struct {
		name       string
		requested  []string
		allowed    []string
		offered    map[string]bool
		wantFwd    []string
		wantDenied map[string]string
	}{
		{"seed example, finance", []string{"tools", "memory", "env", "chains"}, []string{"tools", "memory"}, offered,
			[]string{"tools", "memory"}, map[string]string{"env": ReasonDeniedByPolicy, "chains": ReasonNoPlugin}},
		{"policy allows what the host lacks", []string{"tools", "mcp"}, []string{"tools", "mcp"}, offered,
			[]string{"tools"}, map[string]string{"mcp": ReasonNoPlugin}},
		{"no offer configured: the host decides", []string{"tools", "chains"}, []string{"tools", "chains"}, nil,
			[]string{"tools", "chains"}, map[string]string{}},
		{"nothing allowed", []string{"env"}, nil, offered, nil, map[string]string{"env": ReasonDeniedByPolicy}},
		{"unknown names", []string{"Tools", "tools "}, []string{"tools"}, offered, nil,
			map[string]string{"Tools": ReasonNoPlugin, "tools ": ReasonNoPlugin}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fwd, denied := narrow(tc.requested, tc.allowed, tc.offered)
			if !reflect.DeepEqual(fwd, tc.wantFwd) || !reflect.DeepEqual(denied, tc.wantDenied) {
				t.Errorf("narrow = %v %v, want %v %v", fwd, denied, tc.wantFwd, tc.wantDenied)
			}
		})
	}
}

// TestNegotiatedNeverWidens feeds host answers that try to enable more
// than the gateway forwarded.
func TestNegotiatedNeverWidens(t *testing.T) {
	f := &Front{cfg: Config{MaxParallel: 3, MaxHandshakeAttempts: 3, SessionTTL: time.Hour}}
	created := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	s := Session{ID: "s1", State: StateHandshaking, HandshakeID: "h1", CreatedAt: created, Attempts: 1,
		Requested: []string{"tools", "memory", "env"}, Forwarded: []string{"tools", "memory"},
		Denied: map[string]string{"env": ReasonDeniedByPolicy}}
	enabled := func(name string) a2e.Capability {
		return a2e.Capability{Capability: name, Enabled: true, Metadata: map[string]any{"name": "p-" + name, "reason": "stale"}}
	}
	tests := []struct {
		name        string
		resp        a2e.HandshakeResp
		wantOK      bool
		wantReason  string
		wantEnabled []string
		wantState   State
		wantMax     int
	}{
		{"host enables everything", a2e.HandshakeResp{ReqID: "h1", OK: true, MaxParallel: 8,
			AcceptedCaps: []a2e.Capability{enabled("tools"), enabled("memory"), enabled("env"), enabled("chains")}},
			true, "", []string{"tools", "memory"}, StateReady, 3},
		{"host disables memory", a2e.HandshakeResp{ReqID: "h1", OK: true, MaxParallel: 2,
			AcceptedCaps: []a2e.Capability{enabled("tools"), {Capability: "memory", Metadata: map[string]any{"reason": "no plugin loaded"}}}},
			true, "", []string{"tools"}, StateReady, 2},
		{"host omits a capability", a2e.HandshakeResp{ReqID: "h1", OK: true, AcceptedCaps: []a2e.Capability{enabled("memory")}},
			true, "", []string{"memory"}, StateReady, 3}, // the default 4, capped at 3
		{"duplicate entries: the first counts", a2e.HandshakeResp{ReqID: "h1", OK: true,
			AcceptedCaps: []a2e.Capability{{Capability: "tools"}, enabled("tools")}},
			false, a2e.ReasonNoCaps, nil, StateNew, 0},
		{"host refuses but lists enabled caps", a2e.HandshakeResp{ReqID: "h1", OK: false, Reason: "no_caps",
			AcceptedCaps: []a2e.Capability{enabled("tools")}}, false, a2e.ReasonNoCaps, nil, StateNew, 0},
		{"host refuses the gateway's secret", a2e.HandshakeResp{ReqID: "h1", OK: false, Reason: a2e.ReasonAuthFailed},
			false, a2e.ReasonServerError, nil, StateNew, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, next := f.negotiated(s, &tc.resp)
			got := enabledNames(out.AcceptedCaps)
			if out.OK != tc.wantOK || out.Reason != tc.wantReason || !reflect.DeepEqual(got, tc.wantEnabled) ||
				next.State != tc.wantState || out.MaxParallel != tc.wantMax || !reflect.DeepEqual(next.Accepted, tc.wantEnabled) {
				t.Errorf("negotiated = ok %v %q enabled %v max %d, state %s accepted %v", out.OK, out.Reason, got,
					out.MaxParallel, next.State, next.Accepted)
			}
			if len(out.AcceptedCaps) != len(s.Requested) || out.SessionID != "s1" {
				t.Errorf("accepted_caps %d entries, session %q", len(out.AcceptedCaps), out.SessionID)
			}
			for _, c := range out.AcceptedCaps {
				if c.Enabled && c.Reason() != "" || !c.Enabled && c.Reason() == "" {
					t.Errorf("%+v: an enabled capability carries no reason, a disabled one always does", c)
				}
			}
			if tc.wantOK && !next.ExpiresAt.Equal(created.Add(time.Hour)) {
				t.Errorf("ExpiresAt = %v", next.ExpiresAt)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	good := Host{Name: "lab", URL: "http://127.0.0.1:9103/", AuthToken: "s"}
	tests := []struct {
		name    string
		cfg     Config
		wantErr error
		want    string
	}{
		{"valid", Config{Hosts: []Host{good}}, nil, ""},
		{"no hosts", Config{}, ErrInvalidConfig, "no hosts"},
		{"duplicate", Config{Hosts: []Host{good, good}}, ErrInvalidConfig, "duplicate"},
		{"bad name", Config{Hosts: []Host{{Name: "Lab/x", URL: good.URL, AuthToken: "s"}}}, ErrInvalidConfig, "name"},
		{"relative url", Config{Hosts: []Host{{Name: "lab", URL: "/x", AuthToken: "s"}}}, ErrInvalidConfig, "absolute"},
		{"url with credentials", Config{Hosts: []Host{{Name: "lab", URL: "http://u:p@h/", AuthToken: "s"}}}, ErrInvalidConfig, "credentials"},
		{"no secret", Config{Hosts: []Host{{Name: "lab", URL: good.URL}}}, ErrInvalidConfig, "auth_token"},
		{"unknown capability", Config{Hosts: []Host{{Name: "lab", URL: good.URL, AuthToken: "s", Capabilities: []string{"teleport"}}}}, ErrInvalidConfig, "teleport"},
		{"negative", Config{Hosts: []Host{good}, SessionTTL: -1, MaxLineBytes: -1}, ErrInvalidConfig, "session_ttl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if !errors.Is(err, tc.wantErr) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want %v mentioning %q", err, tc.wantErr, tc.want)
			}
		})
	}
	if _, err := New(Config{Hosts: []Host{good}}, Deps{}); !errors.Is(err, ErrInvalidConfig) ||
		!strings.Contains(err.Error(), "Authenticate") || !strings.Contains(err.Error(), "Sessions") {
		t.Errorf("New without deps: %v", err)
	}
}

func FuzzReadEvents(f *testing.F) {
	for _, s := range []string{
		"data: {\"type\":\"ping\",\"id\":\"p\"}\n\n",
		"data:{\"a\":1}\ndata: {\"b\":2}\n\n: comment\nevent: x\n\ndata: x",
		"\n\n\n", "data:\r\ndata: \r\n\r\n", "data: " + strings.Repeat("x", 300) + "\n\n",
	} {
		f.Add([]byte(s))
	}
	fr := &Front{cfg: Config{MaxEventBytes: 256}, deps: Deps{Runtime: platform.Runtime{Logger: discard()}}}
	f.Fuzz(func(t *testing.T, body []byte) {
		out := make(chan []byte)
		go fr.readEvents(context.Background(), strings.NewReader(string(body)), out)
		for ev := range out {
			if len(ev) == 0 || len(ev) > 256 {
				t.Fatalf("event of %d bytes", len(ev))
			}
		}
	})
}

func TestClientKey(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:5123":                  "192.0.2.7",
		"[::ffff:192.0.2.7]:5123":         "192.0.2.7",
		"[2001:db8:1:2:aaaa::1]:443":      "2001:db8:1:2::/64",
		"[2001:db8:1:2:bbbb::9%eth0]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":           "2001:db8:1:3::/64",
		"@":                               "unknown",
		"":                                "unknown",
		"192.0.2.7":                       "192.0.2.7",
	} {
		if got := clientKey(addr); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", addr, got, want)
		}
	}
}
