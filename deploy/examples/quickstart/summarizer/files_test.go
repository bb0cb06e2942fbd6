package summarizer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/files"
	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
)

// fakeMCPFront stands for the gateway's /mcp/files: it serves the files
// server, refuses the tool calls of a capability named "cap_revoked" as
// the gateway would (-32043), and keeps the headers and bodies of the
// requests that reached it.
type fakeMCPFront struct {
	mu     sync.Mutex
	bodies []string
	auth   []string
}

func (f *fakeMCPFront) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies, f.auth = append(f.bodies, string(b)), append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		if bytes.Contains(b, []byte(`"tools/call"`)) && bytes.Contains(b, []byte("cap_revoked")) {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(b, &req)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) +
				`,"error":{"code":-32043,"message":"capability revoked","data":{"reason":"capability_revoked"}}}`))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		next.ServeHTTP(w, r)
	})
}

// TestDelegatedFiles: handles of a files capability are read with
// read_file at FilesURL, presenting the capability in params._meta and
// the summarizer's own credential; a refusal is reported per file.
func TestDelegatedFiles(t *testing.T) {
	front := &fakeMCPFront{}
	mux := http.NewServeMux()
	mux.Handle("/mcp/files", front.handler(files.New(files.Options{}).Handler()))
	gw := httptest.NewServer(mux)
	defer gw.Close()
	a, err := summarizer.New(summarizer.Options{
		BaseURL: "http://127.0.0.1:9102", DocumentsURL: gw.URL + "/a2a/documents", FilesURL: gw.URL + "/mcp/files",
		Credential: devKey, HTTPClient: &http.Client{Timeout: 5 * time.Second}, Logger: slog.New(slog.DiscardHandler), Now: fixedNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	// Without a gateway in between, the handle is the storage id itself.
	caps := []any{
		map[string]any{"id": "cap_child", "grant": "files:read", "token": "tok-child",
			"resourceHandles": []any{map[string]any{"handle": "files/finance/q1-2026.md", "displayName": "Q1 2026 report"}}},
		map[string]any{"id": "cap_revoked", "grant": "files:read",
			"resourceHandles": []any{map[string]any{"handle": "files/finance/q2-2026.md", "displayName": "Q2 2026 report"}}},
	}
	got := decodeAnswer(t, call(t, srv.URL, "message/send", sendIn("message/send", "Summarize", caps), nil)).text()
	want := "Summaries of 2 delegated document(s):\n" +
		"- Q1 2026 report: Q1 2026: revenue 4.1M EUR, up 12% on Q4; margin 31%.\n" +
		"- Q2 2026 report: refused (capability_revoked)"
	if got != want {
		t.Errorf("answer:\n%s\nwant:\n%s", got, want)
	}
	front.mu.Lock()
	defer front.mu.Unlock()
	var calls []string
	for i, b := range front.bodies {
		if front.auth[i] != "Bearer "+devKey {
			t.Errorf("request %d carried %q, want the summarizer's own credential", i, front.auth[i])
		}
		if strings.Contains(b, `"tools/call"`) {
			calls = append(calls, b)
		}
	}
	if len(calls) != 2 || !strings.Contains(calls[0], `"_meta":{"dev.capgate/capability":{"capabilityToken":"tok-child"}`) ||
		!strings.Contains(calls[1], `"dev.capgate/capability":{"capabilityId":"cap_revoked"}`) {
		t.Errorf("tool calls %q: want each presenting its capability in _meta", calls)
	}
}

// TestFilesURLInvalid: a FilesURL that is not an absolute http(s) URL is
// refused when the agent is built.
func TestFilesURLInvalid(t *testing.T) {
	_, err := summarizer.New(summarizer.Options{
		BaseURL: "http://127.0.0.1:9102", DocumentsURL: "http://127.0.0.1:8080/a2a/documents", FilesURL: "/mcp/files",
		Credential: devKey, Logger: slog.New(slog.DiscardHandler), Now: fixedNow,
	})
	if err == nil || !strings.Contains(err.Error(), "FilesURL") {
		t.Fatalf("New = %v, want FilesURL refused", err)
	}
}
