package proxy_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/gateway/proxy"
)

// recorder is an upstream that keeps the headers of every request it saw.
type recorder struct {
	mu   sync.Mutex
	seen []http.Header
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.seen = append(rec.seen, r.Header.Clone())
	rec.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rec *recorder) last(t *testing.T) http.Header {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.seen) == 0 {
		t.Fatal("the upstream saw no request")
	}
	return rec.seen[len(rec.seen)-1]
}

// startProxy serves a real Proxy in front of a recording upstream. When cc
// is not nil, every request carries it as the gateway's vouched context.
func startProxy(t *testing.T, cc *proxy.Context) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	up := httptest.NewServer(rec)
	t.Cleanup(up.Close)
	target, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := proxy.New(target, proxy.Options{Transport: proxy.NewTransport()})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cc != nil {
			r = r.WithContext(proxy.WithContext(r.Context(), *cc))
		}
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front, rec
}

// send posts to url with the header names exactly as given (not
// canonicalised by the client).
func send(t *testing.T, url string, raw map[string]string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range raw {
		req.Header[k] = []string{v}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status %d, want 204 from the upstream", resp.StatusCode)
	}
}

// normalized returns every value the upstream received under a name that
// normalizes (case folded, '_' read as '-') to want.
func normalized(h http.Header, want string) []string {
	var out []string
	for k, vs := range h {
		if strings.ReplaceAll(strings.ToLower(k), "_", "-") == strings.ToLower(want) {
			out = append(out, vs...)
		}
	}
	return out
}

func TestLookAlikeHeadersNeverReachTheUpstream(t *testing.T) {
	cc := proxy.Context{CapabilityID: "cap_real", Principal: "user:alice@example.com", Holder: "agent:a", Operations: []string{"search"}}
	front, rec := startProxy(t, &cc)
	vouched := map[string]string{
		proxy.HeaderCapabilityID:         cc.CapabilityID,
		proxy.HeaderCapabilityPrincipal:  cc.Principal,
		proxy.HeaderCapabilityHolder:     cc.Holder,
		proxy.HeaderCapabilityOperations: "search",
	}
	tests := []struct {
		name   string
		header string // as the caller spells it
		vouch  string // the header it imitates
	}{
		{"underscores", "A2A_Capability_Principal", proxy.HeaderCapabilityPrincipal},
		{"lower underscores", "a2a_capability_principal", proxy.HeaderCapabilityPrincipal},
		{"upper underscores", "A2A_CAPABILITY_OPERATIONS", proxy.HeaderCapabilityOperations},
		{"mixed separators", "A2A-Capability_Holder", proxy.HeaderCapabilityHolder},
		{"mixed separators 2", "a2a_capability-id", proxy.HeaderCapabilityID},
		{"odd case", "a2A-cAPABILITY-pRINCIPAL", proxy.HeaderCapabilityPrincipal},
		{"token look-alike", "A2A_Capability", proxy.HeaderCapabilityToken},
		{"unknown family member", "A2A_Capability_Admin", "A2A-Capability-Admin"},
		{"forwarded-for", "X_Forwarded_For", "X-Forwarded-For"},
		{"forwarded-host", "x_forwarded_HOST", "X-Forwarded-Host"},
		{"forwarded-proto", "X-Forwarded_Proto", "X-Forwarded-Proto"},
		{"proxy credentials", "Proxy_Authorization", "Proxy-Authorization"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const forged = "user:carol@example.com"
			send(t, front.URL, map[string]string{tc.header: forged, "X-Innocent_Header": "kept"})
			h := rec.last(t)
			got := normalized(h, tc.vouch)
			for _, v := range got {
				if v == forged {
					t.Fatalf("the upstream received the caller's %q as %v", tc.header, h)
				}
			}
			if want, ok := vouched[tc.vouch]; ok && (len(got) != 1 || got[0] != want) {
				t.Fatalf("upstream saw %s = %q, want only the gateway's %q", tc.vouch, got, want)
			}
			if v := h.Get("X-Innocent_Header"); v != "kept" {
				t.Errorf("an unrelated header was dropped: %v", h)
			}
		})
	}
}

// TestLookAlikesStrippedWithoutContext: a request the gateway forwards
// without a capability context carries no capability header at all.
func TestLookAlikesStrippedWithoutContext(t *testing.T) {
	front, rec := startProxy(t, nil)
	send(t, front.URL, map[string]string{
		"A2A_Capability_Principal": "user:carol", "A2A-Capability-Id": "cap_forged",
		"Authorization": "Bearer stolen", "Cookie": "s=1",
	})
	h := rec.last(t)
	for k := range h {
		if proxy.Stripped(k) && !strings.HasPrefix(strings.ToLower(k), "x-forwarded-") {
			t.Errorf("the upstream received %s: %v", k, h[k])
		}
	}
}

func TestStripped(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"A2A-Capability-Principal", true},
		{"A2A_Capability_Principal", true},
		{"a2a_capability", true},
		{"A2A-Capabilityx", true},
		{"Authorization", true},
		{"COOKIE", true},
		{"X_Forwarded_For", true},
		{"A2A-Version", false},
		{"Content-Type", false},
		{"X-Forwarded-Prefix", false},
		{"Capability-Principal", false},
		{"A2A Capability Principal", false},
	}
	for _, tc := range tests {
		if got := proxy.Stripped(tc.name); got != tc.want {
			t.Errorf("Stripped(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzStripped: the decision never depends on case or on '_' versus '-'.
// Only ASCII names are compared: the HTTP server refuses any other.
func FuzzStripped(f *testing.F) {
	for _, s := range []string{"A2A-Capability-Principal", "a2a_capability_id", "Cookie", "X-Forwarded-For", "Content-Type", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsFunc(name, func(r rune) bool { return r > '~' }) {
			t.Skip()
		}
		want := proxy.Stripped(name)
		for _, v := range []string{
			strings.ToUpper(name), strings.ToLower(name), http.CanonicalHeaderKey(name),
			strings.ReplaceAll(name, "-", "_"), strings.ReplaceAll(name, "_", "-"),
		} {
			if proxy.Stripped(v) != want {
				t.Fatalf("Stripped(%q) = %v but Stripped(%q) = %v", name, want, v, !want)
			}
		}
	})
}
