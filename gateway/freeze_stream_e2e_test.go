package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/revocation/redistest"
)

// pacedAgent streams one event, then one more each time send is called,
// until the caller leaves: the test decides when the upstream speaks. A
// send goes to the newest stream alone: an earlier one, ended for its
// caller, may still be open upstream for a moment, and must not take it.
type pacedAgent struct {
	mu  sync.Mutex
	cur chan string
}

func (p *pacedAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	next := make(chan string)
	p.mu.Lock()
	p.cur = next
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\",\"text\":\"opened\"}}\n\n")
	w.(http.Flusher).Flush()
	for {
		select {
		case text := <-next:
			fmt.Fprintf(w, ": %s\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\",\"text\":%q}}\n\n", text, text)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// send has the newest stream's upstream send an event naming text; the
// stream is open (its first event was read).
func (p *pacedAgent) send(text string) {
	p.mu.Lock()
	next := p.cur
	p.mu.Unlock()
	next <- text
}

// openStream opens a stream of method to the extra agent as alice.
func openStream(t *testing.T, h *harness, method string) (*http.Response, <-chan string) {
	t.Helper()
	body := strings.Replace(sendBody, "message/send", method, 1)
	if method == "tasks/resubscribe" {
		body = `{"jsonrpc":"2.0","id":1,"method":"tasks/resubscribe","params":{"id":"t-1"}}`
	}
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/a2a/extra", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer alice-dev-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("%s: Content-Type %q", method, ct)
	}
	events := readEvents(resp.Body)
	if ev := nextEvent(t, events); !strings.Contains(ev, "opened") {
		t.Fatalf("%s: first event %q", method, ev)
	}
	return resp, events
}

// nextEvent is the next data line of a stream; "" once it ended.
func nextEvent(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return ""
	}
}

// TestFreezeEndsOpenStreams: a stream opened before a freeze (a plain
// message/stream or a tasks/resubscribe, under no capability) ends at the
// upstream's next event: the caller gets the frozen refusal in that
// event's place and nothing more of the upstream, and the stream closes.
// An unfreeze lets a new stream run.
func TestFreezeEndsOpenStreams(t *testing.T) {
	up := &pacedAgent{}
	h := newHarness(t, up, func(c *config.Config) { c.Agents[1].TaskOwnership = config.TaskOwnershipOff })
	adm := h.admin(t)
	freezes := []string{`{"kind":"agent","name":"extra","reason":"compromised"}`,
		`{"kind":"principal","name":"` + alicePrincipal + `","reason":"laptop stolen"}`}
	for _, method := range []string{"message/stream", "tasks/resubscribe"} {
		for _, freeze := range freezes {
			t.Run(method+" "+freeze[9:14], func(t *testing.T) {
				_, events := openStream(t, h, method)
				if code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key", freeze); code != 200 {
					t.Fatalf("freeze: %d %v", code, out)
				}
				up.send("after-freeze")
				ev := nextEvent(t, events)
				if strings.Contains(ev, "after-freeze") {
					t.Fatalf("the upstream's event reached the caller after the freeze: %q", ev)
				}
				r := decodeRPC(t, []byte(strings.TrimPrefix(ev, "data: ")))
				wantCode(t, r, -32043, "capability_revoked")
				if r.Error.Data["detail"] != "frozen" {
					t.Fatalf("data.detail = %v, want frozen: %s", r.Error.Data["detail"], ev)
				}
				if ev, ok := <-events; ok {
					t.Fatalf("the stream went on after the refusal: %q", ev)
				}
				if code, out := adminCall(t, adm, "POST", "/admin/unfreeze", "admin-dev-key",
					strings.Replace(freeze, `"reason":"`, `"reason":"lifted `, 1)); code != 200 {
					t.Fatalf("unfreeze: %d %v", code, out)
				}
				_, events = openStream(t, h, method)
				up.send("after-unfreeze")
				if ev := nextEvent(t, events); !strings.Contains(ev, "after-unfreeze") {
					t.Fatalf("after the unfreeze: %q", ev)
				}
			})
		}
	}
}

// TestFreezeEndsStreamOnAnotherReplica: an operator freezes on replica A
// while alice's stream runs through replica B; once the freeze has
// returned, the upstream's next event on B is refused and B's stream
// ends: the freeze reached B's copy of the set, and B checks it per event
// without asking Redis.
func TestFreezeEndsStreamOnAnotherReplica(t *testing.T) {
	srv := redistest.Start(t)
	up := &pacedAgent{}
	mod := func(c *config.Config) {
		c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
			Timeout: config.Duration(250 * time.Millisecond), MaxStaleness: config.Duration(400 * time.Millisecond),
			AllowNoPersistence: true}
	}
	a := newHarnessWith(t, up, mod, nil)
	b := newHarnessWith(t, up, mod, nil)
	_, events := openStream(t, b, "message/stream")
	freeze := `{"kind":"principal","name":"` + alicePrincipal + `","reason":"laptop stolen"}`
	if code, out := adminCall(t, a.admin(t), "POST", "/admin/freeze", "admin-dev-key", freeze); code != 200 {
		t.Fatalf("freeze on A: %d %v", code, out)
	}
	up.send("after-freeze")
	ev := nextEvent(t, events)
	if strings.Contains(ev, "after-freeze") {
		t.Fatalf("B let the upstream's event through after the freeze on A: %q", ev)
	}
	r := decodeRPC(t, []byte(strings.TrimPrefix(ev, "data: ")))
	wantCode(t, r, -32043, "capability_revoked")
	if r.Error.Data["detail"] != "frozen" {
		t.Fatalf("data.detail = %v, want frozen: %s", r.Error.Data["detail"], ev)
	}
	if ev, ok := <-events; ok {
		t.Fatalf("B's stream went on after the refusal: %q", ev)
	}
}
