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

// v03Only makes the documents agent's card declare v0.3 only: without
// its min_protocol_version and max_protocol_version, it declares
// protocolVersion 0.3.0 and nothing else.
func v03Only(card map[string]any, _ string) {
	delete(card, "min_protocol_version")
	delete(card, "max_protocol_version")
}

// v1Only makes the documents agent's card a v1.0 card that declares v1.0
// only: one JSON-RPC interface, no v0.3 members.
func v1Only(card map[string]any, base string) {
	for _, k := range []string{"url", "preferredTransport", "protocolVersion", "additionalInterfaces", "min_protocol_version", "max_protocol_version"} {
		delete(card, k)
	}
	card["supportedInterfaces"] = []any{map[string]any{"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}
}

// startFace puts a face on an agent that serves its card changed by edit
// (which gets the face's base URL); every other request reaches the agent
// unchanged. It returns the face's base URL.
func startFace(t *testing.T, target string, edit func(card map[string]any, base string)) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		edit(card, srv.URL+"/")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(card)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// startFacedWorld is the interop world whose documents agent's card is
// changed by edit.
func startFacedWorld(t *testing.T, edit func(map[string]any, string)) *world {
	t.Helper()
	return startWorldWith(t, true, func(a *config.Agent) {
		if a.Name == sepAgent {
			a.URL = startFace(t, a.URL, edit)
		}
	})
}

// TestJSClientV03Upstreams drives the stock JS client, with default
// options and so speaking A2A v1.0 only, through the gateway to agents
// that serve v0.3 only (the stock a2a-go agent, and the documents agent
// declaring v0.3 only): every operation the client needs works, the
// gateway translating each call and answer.
func TestJSClientV03Upstreams(t *testing.T) {
	w := startFacedWorld(t, v03Only)
	checkEveryOperation(t, w, []string{v03Agent, sepAgent}, v03Agent)
}

// TestJSClientV1Upstreams is the same with agents that serve v1.0 only:
// the JS SDK's own agent, and the documents agent declaring v1.0 only.
func TestJSClientV1Upstreams(t *testing.T) {
	w := startFacedWorld(t, v1Only)
	checkEveryOperation(t, w, []string{v1Agent, sepAgent}, v1Agent)
}

// TestJSClientBothUpstreams is the same with agents that serve both: the
// JS SDK's agent with its v0.3 layer, and the documents agent as it is.
func TestJSClientBothUpstreams(t *testing.T) {
	w := startWorld(t, true)
	checkEveryOperation(t, w, []string{bothAgent, sepAgent}, bothAgent)
}

// checkEveryOperation runs, with the stock JS client, card resolution,
// send, stream and get against each of agents; a skill invocation without
// and with a capability of the documents agent; and a delegation of that
// capability by the SDK's own sendMessage to target.
func checkEveryOperation(t *testing.T, w *world, agents []string, target string) {
	t.Helper()
	t.Run("basics", func(t *testing.T) {
		for _, agent := range agents {
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
			"source": w.base(sepAgent), "base": w.base(target), "bearer": quickstart.AliceKey, "request": aliceRequest,
		}, &out)
		if out.Error != nil || out.Request["error"] != nil || out.Send.Error != nil {
			t.Fatalf("client failed: %+v %v %+v", out.Error, out.Request, out.Send.Error)
		}
		checkMintedChild(t, out)
	})
}
