package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
)

// TestSSEPassthrough checks that a streaming answer is flushed event by
// event: the upstream sends its second event only after the client has
// read the first, which can only work if the gateway does not buffer.
func TestSSEPassthrough(t *testing.T) {
	firstRead := make(chan struct{})
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\"}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-firstRead:
		case <-time.After(10 * time.Second):
			return
		}
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"message\"}}\n\n")
	})
	h := newHarness(t, upstream, nil)
	body := strings.Replace(sendBody, "message/send", "message/stream", 1)
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/a2a/extra", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer alice-dev-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	events := readEvents(resp.Body)
	if ev := <-events; !strings.Contains(ev, "status-update") {
		t.Fatalf("first event = %q", ev)
	}
	close(firstRead)
	if ev := <-events; !strings.Contains(ev, `"kind":"message"`) {
		t.Fatalf("second event = %q", ev)
	}
}

// TestSSEFromDocumentsAgent streams from the real documents agent.
func TestSSEFromDocumentsAgent(t *testing.T) {
	h := newHarness(t, nil, nil)
	resp, b := h.post("documents", "alice-dev-key", strings.Replace(sendBody, "message/send", "message/stream", 1))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if n := strings.Count(string(b), "data:"); n < 2 {
		t.Fatalf("got %d events, want at least 2: %s", n, b)
	}
}

func readEvents(r io.Reader) <-chan string {
	out := make(chan string, 8)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data:") {
				out <- line
			}
		}
	}()
	return out
}

// TestGracefulShutdown starts a slow request, then stops the server: the
// readiness probe must go false first, and the in-flight request must
// still finish with the upstream's answer.
func TestGracefulShutdown(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"done":true}}`)
	})
	h := newHarness(t, upstream, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.gw.Serve(ctx, ln, gateway.NewServer(h.cfg.Listen, h.gw.Handler())) }()

	inflight := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, base+"/a2a/extra", strings.NewReader(sendBody))
		req.Header.Set("Authorization", "Bearer alice-dev-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			inflight <- 0
			return
		}
		resp.Body.Close()
		inflight <- resp.StatusCode
	}()
	<-started
	cancel()
	waitFor(t, func() bool { return status(base+"/readyz") == http.StatusServiceUnavailable })
	close(release)
	if code := <-inflight; code != http.StatusOK {
		t.Fatalf("in-flight request finished with %d, want 200", code)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func status(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitForLimit bounds waitFor: generous, since a loaded two-core CI
// machine running the race detector can take seconds to reconnect a
// replica or answer a poll. The tests assert outcomes, never this time.
const waitForLimit = 30 * time.Second

// waitFor polls cond every few milliseconds until it holds, failing at
// waitForLimit or shortly before the test binary's own deadline, so that
// the failure names the condition rather than a timeout panic.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitForLimit)
	if d, ok := t.Deadline(); ok && d.Add(-5*time.Second).Before(deadline) {
		deadline = d.Add(-5 * time.Second)
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met by %v", deadline.Format(time.TimeOnly))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAgentCard checks the card callers see: url points at the gateway,
// the configured grants are listed and the extension is declared.
func TestAgentCard(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, path := range []string{"agent-card.json", "agent.json"} {
		resp, err := http.Get(h.srv.URL + "/a2a/documents/.well-known/" + path)
		if err != nil {
			t.Fatal(err)
		}
		var card map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if card["url"] != "http://gateway.test/a2a/documents" {
			t.Errorf("%s: url = %v", path, card["url"])
		}
		grants, _ := card["capabilityGrants"].([]any)
		if len(grants) != 3 || grants[0].(map[string]any)["id"] != "documents:read" {
			t.Errorf("%s: capabilityGrants = %v", path, card["capabilityGrants"])
		}
		exts, _ := card["capabilities"].(map[string]any)["extensions"].([]any)
		found := false
		for _, e := range exts {
			found = found || strings.Contains(fmt.Sprint(e), "capability-negotiation")
		}
		if !found {
			t.Errorf("%s: capability extension not declared: %v", path, card["capabilities"])
		}
	}
}

// TestUpstreamClientCredentials checks that upstream calls carry the
// gateway's own client-credentials token, never the caller's.
func TestUpstreamClientCredentials(t *testing.T) {
	var tokenCalls atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokenCalls.Add(1)
		if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "client_credentials" {
			http.Error(w, "bad grant", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"gateway-own-token","token_type":"Bearer","expires_in":3600}`)
	}))
	t.Cleanup(tokenSrv.Close)
	var seen atomic.Value
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	h := newHarness(t, upstream, func(c *config.Config) {
		c.Agents[1].UpstreamAuth = &config.UpstreamAuth{
			TokenURL: tokenSrv.URL, ClientID: "capgate", ClientSecretFile: writeSecret(t),
		}
	})
	resp, b := h.post("extra", "alice-dev-key", sendBody)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if got := seen.Load(); got != "Bearer gateway-own-token" {
		t.Errorf("upstream Authorization = %v, want the gateway's own token", got)
	}
	if tokenCalls.Load() != 1 {
		t.Errorf("token endpoint called %d times", tokenCalls.Load())
	}
}
