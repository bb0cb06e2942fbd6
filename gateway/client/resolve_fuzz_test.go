package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// FuzzResolveHandler: whatever the body, the middleware either hands it
// to next byte for byte, or answers it itself with 204 or one JSON-RPC
// response holding exactly one of result and error; fn runs only for a
// body the gateway's codec reads as one resolve request with an id.
func FuzzResolveHandler(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{"collection":"bins","filter":{"aisle":"a"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"a2a/resources/resolve","params":{"principal":"user:a"}}`,
		`{"jsonrpc":"2.0","method":"a2a/resources/resolve","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{"collection":"a","collection":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolv\u0065","params":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{"filter":{"k":null}}}`,
		``, `[]`, `nul`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		calls := 0
		fn := func(context.Context, client.ResourceQuery) ([]client.Resource, error) {
			calls++
			return []client.Resource{{ID: "bins/a", Collection: "bins", DisplayName: "A"}}, nil
		}
		var gotNext []byte
		reached := false
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reached = true
			gotNext, _ = io.ReadAll(r.Body)
		})
		w := httptest.NewRecorder()
		client.ResolveHandler(fn)(next).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		reqs, batch, err := jsonrpc.Decode(body, jsonrpc.DefaultLimits())
		isCall := err == nil && !batch && reqs[0].Err == nil && reqs[0].Method == sep.MethodResolve && !reqs[0].IsNotification()
		switch {
		case reached:
			if !bytes.Equal(gotNext, body) || calls != 0 {
				t.Fatalf("next got %q (fn called %d times), want the body intact", gotNext, calls)
			}
			return
		case w.Code == http.StatusNoContent:
			if calls != 0 || w.Body.Len() != 0 {
				t.Fatal("a notification was answered or resolved")
			}
			return
		}
		if calls > 1 || (calls == 1 && !isCall) {
			t.Fatalf("fn called %d times for %q", calls, body)
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
			t.Fatalf("answer %q is not one JSON object: %v", w.Body.Bytes(), err)
		}
		_, hasResult := env["result"]
		_, hasError := env["error"]
		if hasResult == hasError || string(env["jsonrpc"]) != `"2.0"` {
			t.Fatalf("answer %s is not a JSON-RPC response", w.Body.Bytes())
		}
		if hasResult && calls != 1 {
			t.Fatalf("a result %s that fn did not give", w.Body.Bytes())
		}
	})
}
