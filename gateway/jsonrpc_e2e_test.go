package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestJSONRPCFront checks bad input on the real handler: each gets a clear
// JSON-RPC error with a bounded cost, and none reaches the upstream.
func TestJSONRPCFront(t *testing.T) {
	h := newHarness(t, nil, nil)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantCode   int
		wantReason string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,`, http.StatusBadRequest, -32700, ""},
		{"not an object", `"hello"`, http.StatusOK, -32600, ""},
		{"oversized body", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"pad":"` + strings.Repeat("a", 5000) + `"}}`, http.StatusRequestEntityTooLarge, -32600, ""},
		{"duplicate keys", `{"jsonrpc":"2.0","id":1,"method":"message/send","method":"tasks/get","params":{}}`, http.StatusBadRequest, -32600, "duplicate_key"},
		{"nested duplicate keys", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","role":"agent"}}}`, http.StatusBadRequest, -32600, "duplicate_key"},
		{"case-variant keys", `{"jsonrpc":"2.0","id":1,"method":"message/send","Method":"a2a/skill/invoke","params":{}}`, http.StatusBadRequest, -32600, "duplicate_key"},
		{"batch over the limit", `[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}},`, 3) + `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":"t"}}]`, http.StatusBadRequest, -32600, ""},
		{"empty batch", `[]`, http.StatusBadRequest, -32600, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"admin/shell","params":{}}`, http.StatusOK, -32601, ""},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"message/send","params":{}}`, http.StatusOK, -32600, ""},
		{"params not structured", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":"x"}`, http.StatusOK, -32600, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.docs.Recorder().Reset()
			resp, body := h.post("documents", "alice-dev-key", tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			r := decodeRPC(t, body)
			if r.Error == nil || r.Error.Code != tt.wantCode {
				t.Fatalf("error = %+v, want code %d: %s", r.Error, tt.wantCode, body)
			}
			if tt.wantReason != "" && r.Error.Data["reason"] != tt.wantReason {
				t.Errorf("reason = %v, want %s", r.Error.Data["reason"], tt.wantReason)
			}
			h.upstreamSawNothing()
		})
	}
}

// TestMethodGenerations checks that all three generations of A2A method
// names are accepted and forwarded.
func TestMethodGenerations(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, m := range []string{"SendMessage", "message/send", "tasks/send"} {
		t.Run(m, func(t *testing.T) {
			body := strings.Replace(sendBody, "message/send", m, 1)
			resp, b := h.post("documents", "alice-dev-key", body)
			r := decodeRPC(t, b)
			if resp.StatusCode != http.StatusOK || r.Error != nil || r.Result == nil {
				t.Fatalf("%s: status %d: %s", m, resp.StatusCode, b)
			}
		})
	}
}

// TestBatch checks that a batch is decided element by element: allowed
// elements are forwarded, refused ones are answered by the gateway, and the
// answers come back in request order.
func TestBatch(t *testing.T) {
	h := newHarness(t, nil, nil)
	body := `[` + sendBody + `,{"jsonrpc":"2.0","id":2,"method":"no/such","params":{}},` +
		`{"jsonrpc":"2.0","id":3,"method":"message/stream","params":{}}]`
	resp, b := h.post("documents", "alice-dev-key", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	rs := decodeBatch(t, b)
	if len(rs) != 3 {
		t.Fatalf("got %d answers: %s", len(rs), b)
	}
	if rs[0].Error != nil || rs[0].Result == nil {
		t.Errorf("answer 1 should be the upstream's result: %s", b)
	}
	if rs[1].Error == nil || rs[1].Error.Code != -32601 {
		t.Errorf("answer 2 should be method not found: %s", b)
	}
	if rs[2].Error == nil || rs[2].Error.Data["reason"] != "streaming_in_batch" {
		t.Errorf("answer 3 should refuse a streaming method in a batch: %s", b)
	}
	if n := h.calls(); n != 1 {
		t.Errorf("upstream saw %d requests, want only the allowed one", n)
	}
}

func TestUnknownAgent(t *testing.T) {
	h := newHarness(t, nil, nil)
	resp, b := h.post("nobody", "alice-dev-key", sendBody)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	h.upstreamSawNothing()
}
