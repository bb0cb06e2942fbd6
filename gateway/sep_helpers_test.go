package gateway_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// issued is a capability as a2a/capabilities/request answers it.
type issued struct {
	ID              string `json:"id"`
	Grant           string `json:"grant"`
	Token           string `json:"token"`
	ResourceHandles []struct {
		Handle      string `json:"handle"`
		DisplayName string `json:"displayName"`
	} `json:"resourceHandles"`
	Operations   []string `json:"operations"`
	Expires      string   `json:"expires"`
	RevocationID string   `json:"revocationId"`
	Principal    string   `json:"principal"`
	Holder       string   `json:"holder"`
	Depth        int      `json:"depth"`
}

func (c issued) handle(name string) string {
	for _, h := range c.ResourceHandles {
		if h.DisplayName == name {
			return h.Handle
		}
	}
	return ""
}

// rpc posts one JSON-RPC call and decodes the answer.
func (h *harness) rpc(bearer, method string, params any, hdr ...string) (*http.Response, rpcResponse) {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		h.t.Fatal(err)
	}
	resp, b := h.post("documents", bearer, string(body), hdr...)
	return resp, decodeRPC(h.t, b)
}

// request asks for a capability and fails the test unless exactly one is
// issued.
func (h *harness) request(bearer string, params map[string]any) issued {
	h.t.Helper()
	_, r := h.rpc(bearer, "a2a/capabilities/request", params)
	if r.Error != nil {
		h.t.Fatalf("request refused: %+v", r.Error)
	}
	var res struct {
		Capabilities []issued `json:"capabilities"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Capabilities) != 1 {
		h.t.Fatalf("want one capability, got %s (%v)", r.Result, err)
	}
	return res.Capabilities[0]
}

// aliceQ1 is the README's request: alice, documents:read on the 2025-Q1
// reports, for a stated purpose.
func (h *harness) aliceQ1() issued {
	h.t.Helper()
	return h.request("alice-dev-key", map[string]any{
		"grants": []string{"documents:read"}, "purpose": "Summarize quarterly reports",
		"resourceQuery": map[string]any{"collection": "reports", "filter": map[string]string{"quarter": "2025-Q1"}},
	})
}

func (h *harness) attenuate(bearer string, params map[string]any) (issued, rpcResponse) {
	h.t.Helper()
	_, r := h.rpc(bearer, "a2a/capabilities/attenuate", params)
	var res struct {
		Capabilities []issued `json:"capabilities"`
	}
	if r.Error == nil {
		if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Capabilities) != 1 {
			h.t.Fatalf("attenuate: want one capability, got %s", r.Result)
		}
		return res.Capabilities[0], r
	}
	return issued{}, r
}

func invokeParams(skill, capID string, args map[string]any) map[string]any {
	p := map[string]any{"skill": skill, "arguments": args}
	if capID != "" {
		p["capabilityId"] = capID
	}
	return p
}

// wantCode fails unless r is a JSON-RPC error with code and reason.
func wantCode(t *testing.T, r rpcResponse, code int, reason string) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("want error %d %s, got result %s", code, reason, r.Result)
	}
	if r.Error.Code != code || (reason != "" && r.Error.Data["reason"] != reason) {
		t.Fatalf("want error %d %s, got %d %v (%s)", code, reason, r.Error.Code, r.Error.Data["reason"], r.Error.Message)
	}
}

// invokeCount is how many a2a/skill/invoke calls reached the agent.
func (h *harness) invokeCount() int { return h.docs.Recorder().CountRPC("a2a/skill/invoke") }
