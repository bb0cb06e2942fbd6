package a2afront

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/sep"
)

// leakyHeaders answers an invocation with headers naming storage ids,
// beside those a caller needs.
func leakyHeaders(w http.ResponseWriter, _ *http.Request, method string, id json.RawMessage, _ []byte) bool {
	if method != sep.MethodInvoke {
		return false
	}
	w.Header().Set("X-Note-Id", "notes/bob-ideas")
	w.Header().Set("Link", "<http://upstream.test/notes/alice-groceries>; rel=related")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","messageId":"m1","role":"agent","parts":[{"kind":"text","text":"ok"}]}}`, id)
	return true
}

// postHeaders sends body to agent as the holder of key through the
// front's routes and returns the caller's answer.
func (fx *fixture) postHeaders(tb testing.TB, key, agent, body string) *http.Response {
	tb.Helper()
	r := chi.NewRouter()
	fx.front.Mount(r)
	req := httptest.NewRequest(http.MethodPost, "/a2a/"+agent, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+key)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w.Result()
}

// TestScopedAnswerHeadersAllowlisted: on an invocation, an agent's answer
// headers naming storage ids never reach the caller; the headers a caller
// needs do.
func TestScopedAnswerHeadersAllowlisted(t *testing.T) {
	fx := newFixture(t)
	fx.upstream.answer = leakyHeaders
	c := fx.issue(t)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}}`,
		c.ID, c.ResourceHandles[0].Handle)
	resp := fx.postHeaders(t, aliceKey, "documents", body)
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"result"`) {
		t.Fatalf("invocation answered %d %s", resp.StatusCode, answer)
	}
	for _, name := range []string{"X-Note-Id", "Link"} {
		if v := resp.Header.Values(name); len(v) != 0 {
			t.Errorf("the caller saw %s: %v", name, v)
		}
	}
	for name, vv := range resp.Header {
		if strings.Contains(strings.Join(vv, " "), "notes/") {
			t.Errorf("the caller saw %s: %v", name, vv)
		}
	}
	for _, name := range []string{"Content-Type", "Content-Length", "Cache-Control", "Traceparent"} {
		if resp.Header.Get(name) == "" {
			t.Errorf("the caller lost %s (headers %v)", name, resp.Header)
		}
	}
}
