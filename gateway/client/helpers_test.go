package client_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/client"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// received is one request the fake gateway got.
type received struct {
	Path   string
	Header http.Header
	Body   []byte
}

// fakeGateway records requests and answers each with answer(req), where
// req is the decoded JSON-RPC request.
type fakeGateway struct {
	srv    *httptest.Server
	answer func(w http.ResponseWriter, req map[string]json.RawMessage)
	mu     sync.Mutex
	got    []received
}

func newFakeGateway(t *testing.T, answer func(w http.ResponseWriter, req map[string]json.RawMessage)) *fakeGateway {
	t.Helper()
	g := &fakeGateway{answer: answer}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		g.got = append(g.got, received{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		g.mu.Unlock()
		var req map[string]json.RawMessage
		_ = json.Unmarshal(body, &req)
		g.answer(w, req)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeGateway) requests() []received {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]received(nil), g.got...)
}

// result answers the request with result.
func result(v any) func(http.ResponseWriter, map[string]json.RawMessage) {
	return func(w http.ResponseWriter, req map[string]json.RawMessage) {
		writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": v})
	}
}

// rpcError answers the request with a JSON-RPC error.
func rpcError(status, code int, msg string, data any) func(http.ResponseWriter, map[string]json.RawMessage) {
	return func(w http.ResponseWriter, req map[string]json.RawMessage) {
		e := map[string]any{"code": code, "message": msg}
		if data != nil {
			e["data"] = data
		}
		writeJSON(w, status, map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": e})
	}
}

// raw answers with status and body exactly.
func raw(status int, body string) func(http.ResponseWriter, map[string]json.RawMessage) {
	return func(w http.ResponseWriter, _ map[string]json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// issued is a capability in the issuance shape, as the gateway answers it.
func issued(id string) map[string]any {
	return map[string]any{
		"id": id, "grant": "documents:read", "token": "tok-" + id,
		"resourceHandles": []any{map[string]any{"handle": "rh_1", "displayName": "Q1 Financial Summary"}},
		"operations":      []string{"retrieve", "list"}, "expires": "2025-01-09T13:00:00Z",
		"revocationId": "rv_" + id, "principal": "user:alice@example.com", "holder": "user:alice@example.com", "depth": 0,
	}
}

// testCap is the capability the wire tests present.
func testCap() client.Capability {
	return client.Capability{
		ID: "cap_parent", Grant: "documents:read", Token: "tok-parent",
		ResourceHandles: []client.ResourceHandle{{Handle: "rh_1", DisplayName: "Q1 Financial Summary"}, {Handle: "rh_2"}},
		Operations:      []string{"retrieve", "list"}, Expires: time.Date(2025, 1, 9, 13, 0, 0, 0, time.UTC),
	}
}

func newClient(t *testing.T, url string, opts client.Options) *client.Client {
	t.Helper()
	c, err := client.New(url, "documents", opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after checking):\n got: %s\nwant: %s", name, got, want)
	}
}
