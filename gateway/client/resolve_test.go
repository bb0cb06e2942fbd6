package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// hook is an agent made of ResolveHandler in front of a next handler that
// records what reached it.
type hook struct {
	srv      *httptest.Server
	mu       sync.Mutex
	queries  []client.ResourceQuery
	princips []string
	next     [][]byte
}

func newHook(t *testing.T, answer func(client.ResourceQuery) ([]client.Resource, error)) *hook {
	t.Helper()
	h := &hook{}
	fn := func(ctx context.Context, q client.ResourceQuery) ([]client.Resource, error) {
		h.mu.Lock()
		h.queries = append(h.queries, q)
		h.princips = append(h.princips, client.ResolvePrincipal(ctx))
		h.mu.Unlock()
		return answer(q)
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.next = append(h.next, b)
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"from next"}`)
	})
	h.srv = httptest.NewServer(client.ResolveHandler(fn)(next))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) post(t *testing.T, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(h.srv.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

var q1 = []client.Resource{
	{ID: "bins/a-1", Collection: "bins", DisplayName: "Bin A1", Attributes: map[string]string{"aisle": "a"}},
	{ID: "bins/b-7", Collection: "bins", DisplayName: "Bin B7"},
}

func resolveBody(params string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":` + params + `}`)
}

func TestResolveHandler(t *testing.T) {
	found := func(client.ResourceQuery) ([]client.Resource, error) { return q1, nil }
	failWith := func(err error) func(client.ResourceQuery) ([]client.Resource, error) {
		return func(client.ResourceQuery) ([]client.Resource, error) { return nil, err }
	}
	answer := func(rs ...client.Resource) func(client.ResourceQuery) ([]client.Resource, error) {
		return func(client.ResourceQuery) ([]client.Resource, error) { return rs, nil }
	}
	huge := strings.Repeat("x", sep.MaxResolveAnswerBytes)
	tests := []struct {
		name       string
		answer     func(client.ResourceQuery) ([]client.Resource, error)
		body       []byte
		wantStatus int
		wantCode   int    // 0: a result
		wantReason string // data.reason, when an error
		wantResult string // the result, when not an error
		wantFn     int    // calls of fn
		wantNext   bool   // reached next, bytes intact
	}{
		{name: "query", answer: found, body: resolveBody(`{"principal":"user:alice@example.com","collection":"bins","filter":{"aisle":"a"}}`),
			wantStatus: 200, wantFn: 1,
			wantResult: `{"resources":[{"id":"bins/a-1","collection":"bins","displayName":"Bin A1","attributes":{"aisle":"a"}},{"id":"bins/b-7","collection":"bins","displayName":"Bin B7","attributes":{}}]}`},
		{name: "empty query", answer: answer(), body: resolveBody(`{}`), wantStatus: 200, wantFn: 1, wantResult: `{"resources":[]}`},
		{name: "null filter", answer: answer(), body: resolveBody(`{"filter":null}`), wantStatus: 200, wantFn: 1, wantResult: `{"resources":[]}`},

		{name: "unknown member", answer: found, body: resolveBody(`{"collection":"bins","owner":"bob"}`), wantStatus: 200, wantCode: -32602, wantReason: "invalid_params"},
		{name: "case-variant member", answer: found, body: resolveBody(`{"Collection":"bins"}`), wantStatus: 200, wantCode: -32602, wantReason: "invalid_params"},
		{name: "filter value not a string", answer: found, body: resolveBody(`{"filter":{"aisle":1}}`), wantStatus: 200, wantCode: -32602, wantReason: "invalid_params"},
		{name: "params absent", answer: found, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve"}`), wantStatus: 200, wantCode: -32602, wantReason: "invalid_params"},
		{name: "params by position", answer: found, body: resolveBody(`["bins"]`), wantStatus: 200, wantCode: -32602, wantReason: "invalid_params"},
		{name: "duplicate member in params", answer: found, body: resolveBody(`{"collection":"bins","collection":"hr"}`), wantStatus: 400, wantCode: -32600, wantReason: "duplicate_key"},
		{name: "duplicate method", answer: found, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","method":"a2a/resources/resolve","params":{}}`),
			wantStatus: 400, wantCode: -32600, wantReason: "duplicate_key"},
		{name: "case-variant members", answer: found, body: resolveBody(`{"collection":"bins","COLLECTION":"hr"}`), wantStatus: 400, wantCode: -32600, wantReason: "duplicate_key"},
		{name: "not JSON", answer: found, body: []byte(`{"jsonrpc":"2.0",`), wantStatus: 400, wantCode: -32700, wantReason: "parse_error"},
		{name: "invalid UTF-8", answer: found, body: resolveBody("{\"collection\":\"\xff\"}"), wantStatus: 400, wantCode: -32700, wantReason: "invalid_utf8"},
		{name: "in a batch", answer: found, body: []byte(`[` + string(resolveBody(`{}`)) + `]`), wantStatus: 400, wantCode: -32600, wantReason: "invalid_request"},
		{name: "notification", answer: found, body: []byte(`{"jsonrpc":"2.0","method":"a2a/resources/resolve","params":{}}`), wantStatus: 204},

		{name: "query refused", answer: failWith(fmt.Errorf("%w: no collection hr here", client.ErrInvalidQuery)), body: resolveBody(`{"collection":"hr"}`),
			wantStatus: 200, wantCode: -32602, wantReason: "invalid_params", wantFn: 1},
		{name: "JSON-RPC error", answer: failWith(&jsonrpc.Error{Code: -32001, Message: "busy"}), body: resolveBody(`{}`), wantStatus: 200, wantCode: -32001, wantFn: 1},
		{name: "other error hidden", answer: failWith(errors.New("db password wrong")), body: resolveBody(`{}`), wantStatus: 200, wantCode: -32603, wantReason: "internal_error", wantFn: 1},
		{name: "resource without id", answer: answer(client.Resource{Collection: "bins"}), body: resolveBody(`{}`), wantStatus: 200, wantCode: -32603, wantReason: "internal_error", wantFn: 1},
		{name: "repeated id", answer: answer(q1[0], q1[0]), body: resolveBody(`{}`), wantStatus: 200, wantCode: -32603, wantReason: "internal_error", wantFn: 1},
		{name: "id not UTF-8", answer: answer(client.Resource{ID: "bins/\xff"}), body: resolveBody(`{}`), wantStatus: 200, wantCode: -32603, wantReason: "internal_error", wantFn: 1},
		{name: "attribute not UTF-8", answer: answer(client.Resource{ID: "bins/a", Attributes: map[string]string{"k": "\xfe"}}), body: resolveBody(`{}`),
			wantStatus: 200, wantCode: -32603, wantReason: "internal_error", wantFn: 1},
		{name: "answer too large", answer: answer(client.Resource{ID: "bins/a", DisplayName: huge}), body: resolveBody(`{}`), wantStatus: 200, wantCode: -32603, wantReason: "internal_error", wantFn: 1},

		{name: "another method", answer: found, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{}}}`), wantStatus: 200, wantResult: `"from next"`, wantNext: true},
		{name: "not a request", answer: found, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":null}`), wantStatus: 200, wantResult: `"from next"`, wantNext: true},
		{name: "a batch of others", answer: found, body: []byte(`[{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}]`), wantStatus: 200, wantResult: `"from next"`, wantNext: true},
		{name: "larger than any resolution", answer: found,
			body:       resolveBody(`{"collection":"` + strings.Repeat("b", int(jsonrpc.DefaultLimits().MaxBodyBytes)) + `"}`),
			wantStatus: 200, wantResult: `"from next"`, wantNext: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHook(t, tt.answer)
			status, body := h.post(t, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tt.wantStatus, body)
			}
			checkAnswer(t, body, tt.wantCode, tt.wantReason, tt.wantResult)
			if len(h.queries) != tt.wantFn {
				t.Errorf("fn called %d times, want %d", len(h.queries), tt.wantFn)
			}
			if reached := len(h.next) == 1; reached != tt.wantNext || (reached && !bytes.Equal(h.next[0], tt.body)) {
				t.Errorf("next reached %d times (intact: %v), want %v", len(h.next), reached && bytes.Equal(h.next[0], tt.body), tt.wantNext)
			}
		})
	}
}

// checkAnswer checks a JSON-RPC answer: an error with code and reason,
// or, when code is 0, the result (unless the answer is empty).
func checkAnswer(t *testing.T, body []byte, code int, reason, result string) {
	t.Helper()
	if len(body) == 0 && code == 0 && result == "" {
		return
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	if code == 0 {
		if env.Error != nil || string(env.Result) != result {
			t.Errorf("answer %s, want result %s", body, result)
		}
		return
	}
	if env.Error == nil || env.Error.Code != code || env.Error.Reason() != reason {
		t.Errorf("answer %s, want error %d %q", body, code, reason)
	}
	if strings.Contains(string(body), "password") {
		t.Errorf("the answer leaks the error's text: %s", body)
	}
}

// TestResolveHandlerPassesQueryAndPrincipal: fn sees the query and the
// principal the gateway sent.
func TestResolveHandlerPassesQueryAndPrincipal(t *testing.T) {
	h := newHook(t, func(client.ResourceQuery) ([]client.Resource, error) { return nil, nil })
	h.post(t, resolveBody(`{"principal":"user:alice@example.com","collection":"bins","filter":{"aisle":"a","row":"2"}}`))
	h.post(t, resolveBody(`{}`))
	if len(h.queries) != 2 {
		t.Fatalf("fn called %d times", len(h.queries))
	}
	q := h.queries[0]
	if q.Collection != "bins" || len(q.Filter) != 2 || q.Filter["aisle"] != "a" || q.Filter["row"] != "2" || h.princips[0] != "user:alice@example.com" {
		t.Errorf("fn got %+v for %q", q, h.princips[0])
	}
	if q := h.queries[1]; q.Collection != "" || q.Filter != nil || h.princips[1] != "" {
		t.Errorf("an empty query reached fn as %+v for %q", q, h.princips[1])
	}
}

// TestResolveHandlerPassesGET: the card and every other GET go to next.
func TestResolveHandlerPassesGET(t *testing.T) {
	h := newHook(t, func(client.ResourceQuery) ([]client.Resource, error) { return nil, nil })
	resp, err := http.Get(h.srv.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(h.next) != 1 || len(h.queries) != 0 {
		t.Errorf("next reached %d times, fn %d times", len(h.next), len(h.queries))
	}
}

func TestResolveHandlerNilFunc(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ResolveHandler(nil) did not panic")
		}
	}()
	client.ResolveHandler(nil)
}
