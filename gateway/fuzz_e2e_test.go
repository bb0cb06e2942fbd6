package gateway_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzInvokeParams posts fuzzed a2a/skill/invoke params, next to a valid
// capability, through the real handler. Whatever the params, the gateway
// answers JSON-RPC (never a 5xx or a panic), a call the agent never saw is
// an error, and what is forwarded never carries the token, a real id the
// capability does not designate, or a case variant of a resource argument.
func FuzzInvokeParams(f *testing.F) {
	f.Add(`{"skill":"retrieve_document","capabilityId":"$ID","arguments":{"resourceHandle":"$H"}}`)
	f.Add(`{"skill":"retrieve_document","capabilityId":"$ID","arguments":{"resourceHandle":"$H","resourceHandle":"rh_x"}}`)
	f.Add(`{"skill":"list_documents","capabilityId":"$ID","arguments":{"resourceHandles":["$H"]}}`)
	f.Add(`{"skill":"retrieve_document","capabilityId":"$ID","capabilityToken":"$T","arguments":{"resourceId":"hr/salaries-2025"}}`)
	f.Add(`{"skill":"update_document","capabilityId":"$ID","arguments":{"resourceHandle":"$H","content":"x"}}`)
	f.Add(`{"skill":"retrieve_document","capabilityId":"$ID","arguments":{"resourceHandle":["$H"]}}`)
	f.Add(`{"skill":"retrieve_document","capabilityID":"$ID","arguments":{}}`)
	f.Add(`[]`)
	f.Add(`{"skill":"retrieve_document","capabilityId":"$ID","arguments":{"ResourceId":"hr/salaries-2025"}}`)
	f.Add(`{"skill":"list_documents","capabilityId":"$ID","arguments":{"resourceids":["hr/salaries-2025"]}}`)
	f.Fuzz(func(t *testing.T, params string) {
		h := newHarness(t, nil, nil)
		c := h.aliceQ1()
		h.docs.Recorder().Reset()
		params = strings.NewReplacer("$ID", c.ID, "$H", c.ResourceHandles[0].Handle, "$T", c.Token).Replace(params)
		body := `{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":` + params + `}`
		before := h.calls()
		req := httptest.NewRequest(http.MethodPost, "/a2a/documents", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer alice-dev-key")
		rec := httptest.NewRecorder()
		h.gw.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for %s", rec.Code, body)
		}
		var out rpcResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("not JSON-RPC: %s", rec.Body.Bytes())
		}
		reached := h.calls() > before
		if !reached {
			if out.Error == nil {
				t.Fatalf("answered with a result but the agent saw nothing: %s", body)
			}
			return
		}
		reqs := h.docs.Recorder().Requests()
		checkForwarded(t, reqs[len(reqs)-1].Body, c.Token)
	})
}

// checkForwarded asserts what an allowed invocation may carry upstream:
// never the token, and only real ids the capability designates.
func checkForwarded(t *testing.T, fwd []byte, token string) {
	t.Helper()
	if bytes.Contains(fwd, []byte(token)) {
		t.Fatalf("forwarded the token: %s", fwd)
	}
	var req struct {
		Params struct {
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(fwd, &req); err != nil {
		t.Fatalf("forwarded body is not JSON: %s", fwd)
	}
	allowed := map[string]bool{`"reports/q1-financial"`: true, `"reports/q1-sales"`: true}
	for k, v := range req.Params.Arguments {
		switch {
		case k == "resourceId" && !allowed[string(v)]:
			t.Fatalf("forwarded resourceId %s outside the capability", v)
		case k == "resourceIds":
			var ids []string
			_ = json.Unmarshal(v, &ids)
			for _, id := range ids {
				if !allowed[`"`+id+`"`] {
					t.Fatalf("forwarded resourceIds %s outside the capability", v)
				}
			}
		case k != "resourceId" && k != "resourceIds" && (strings.EqualFold(k, "resourceId") || strings.EqualFold(k, "resourceIds") ||
			strings.EqualFold(k, "resourceHandle") || strings.EqualFold(k, "resourceHandles")):
			t.Fatalf("forwarded a case variant of a resource argument: %s", k)
		}
	}
}
