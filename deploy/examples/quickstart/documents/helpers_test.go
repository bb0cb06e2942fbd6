package documents_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func fixedNow() time.Time { return time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC) }

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newServer starts a documents agent behind an httptest server.
func newServer(t testing.TB) (*documents.Agent, *httptest.Server) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	a, err := documents.New(documents.Options{
		BaseURL: "http://" + srv.Listener.Addr().String(),
		Logger:  discardLogger(),
		Now:     fixedNow,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.Config.Handler = a.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return a, srv
}

// rpcResp is a decoded JSON-RPC response.
type rpcResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func (r rpcResp) reason() string {
	if r.Error == nil {
		return ""
	}
	s, _ := r.Error.Data["reason"].(string)
	return s
}

// post sends body to url with headers and returns the HTTP response.
func post(t testing.TB, url, body string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// call sends one JSON-RPC request and decodes the response.
func call(t testing.TB, url, method string, params any, header http.Header) rpcResp {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, post(t, url, string(body), header))
}

func decode(t testing.TB, resp *http.Response) rpcResp {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out rpcResp
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode %q: %v", raw, err)
	}
	return out
}

// sseEvents reads every SSE data: line of a stream.
func sseEvents(t testing.TB, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("%s mismatch (run with -update)\n got: %s\nwant: %s", name, got, want)
	}
}

func indent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
