package interop_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/config"
)

// startV03Only puts a v0.3-only face on an agent: its card is served
// without the min_protocol_version and max_protocol_version members, so
// that it declares protocolVersion 0.3.0 and nothing else; every other
// request reaches the agent unchanged. It returns the face's base URL.
func startV03Only(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/.well-known/") {
			rp.ServeHTTP(w, r)
			return
		}
		resp, err := http.Get(strings.TrimSuffix(target, "/") + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var card map[string]any
		if b, err := io.ReadAll(resp.Body); err != nil || json.Unmarshal(b, &card) != nil {
			http.Error(w, "bad card", http.StatusBadGateway)
			return
		}
		delete(card, "min_protocol_version")
		delete(card, "max_protocol_version")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(card)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// startV03World is the interop world whose documents agent declares A2A
// v0.3 only.
func startV03World(t *testing.T) *world {
	t.Helper()
	return startWorldWith(t, true, func(a *config.Agent) {
		if a.Name == sepAgent {
			a.URL = startV03Only(t, a.URL)
		}
	})
}

// TestJSClientV03Upstreams drives the stock JS client, with default
// options and so speaking A2A v1.0 only, through the gateway to agents
// that serve v0.3 only (the stock a2a-go agent, and the documents agent
// declaring v0.3 only): every operation the client needs works, the
// gateway translating each call and answer.
func TestJSClientV03Upstreams(t *testing.T) {
	w := startV03World(t)
	t.Run("basics", func(t *testing.T) {
		for _, agent := range []string{v03Agent, sepAgent} {
			t.Run(agent, func(t *testing.T) {
				var out basicOut
				runClient(t, w.kit, "basic", map[string]any{"base": w.base(agent), "bearer": quickstart.AliceKey}, &out)
				if out.Error != nil || out.Card.Error != nil {
					t.Fatalf("client failed: %+v %+v", out.Error, out.Card.Error)
				}
				if out.Card.ProtocolVersion != "1.0" {
					t.Errorf("the client speaks %q, want 1.0", out.Card.ProtocolVersion)
				}
				checkBasics(t, agent, out)
			})
		}
	})
	t.Run("skill invoke", func(t *testing.T) {
		var out invokeOut
		runClient(t, w.kit, "invoke", map[string]any{
			"base": w.base(sepAgent), "bearer": quickstart.AliceKey, "request": aliceRequest, "skill": "retrieve_document",
		}, &out)
		checkInvoke(t, out)
	})
	t.Run("delegation", func(t *testing.T) {
		var out delegateOut
		runClient(t, w.kit, "delegate", map[string]any{
			"source": w.base(sepAgent), "base": w.base(v03Agent), "bearer": quickstart.AliceKey, "request": aliceRequest,
		}, &out)
		if out.Error != nil || out.Request["error"] != nil || out.Send.Error != nil {
			t.Fatalf("client failed: %+v %v %+v", out.Error, out.Request, out.Send.Error)
		}
		checkMintedChild(t, out)
	})
}
