package summarizer_test

import (
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
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const devKey = "summarizer-dev-key"

func fixedNow() time.Time { return time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC) }

// gatewayCall is one request the fake gateway received.
type gatewayCall struct {
	Authorization string
	Method        string
	Params        struct {
		Skill           string            `json:"skill"`
		Arguments       map[string]string `json:"arguments"`
		CapabilityID    string            `json:"capabilityId"`
		CapabilityToken string            `json:"capabilityToken"`
	}
}

// fakeGateway answers a2a/skill/invoke for the summarizer by handle.
type fakeGateway struct {
	mu    sync.Mutex
	calls []gatewayCall
	srv   *httptest.Server
}

func newFakeGateway(t testing.TB) *fakeGateway {
	g := &fakeGateway{}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID json.RawMessage `json:"id"`
		gatewayCall
	}
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &req)
	_ = json.Unmarshal(raw, &req.gatewayCall)
	req.gatewayCall.Authorization = r.Header.Get("Authorization")
	g.mu.Lock()
	g.calls = append(g.calls, req.gatewayCall)
	g.mu.Unlock()
	answer := func(member string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,` + member + `}`))
	}
	switch req.Params.Arguments["resourceHandle"] {
	case "rh_001":
		answer(`"result":{"id":"reports/q1-financial","title":"Q1 Financial Summary","content":"Q1 revenue grew 12%.\nSecond line."}`)
	case "rh_002":
		answer(`"result":{"id":"reports/q1-sales","title":"Q1 Sales Report","content":"Q1 sales closed 148 accounts."}`)
	case "rh_revoked":
		answer(`"error":{"code":-32043,"message":"capability revoked","data":{"reason":"capability_revoked"}}`)
	case "rh_noreason":
		answer(`"error":{"code":-32045,"message":"resource not permitted"}`)
	case "rh_500":
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
	default:
		answer(`"error":{"code":-32045,"message":"resource not permitted","data":{"reason":"resource_not_permitted"}}`)
	}
}

func (g *fakeGateway) Calls() []gatewayCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]gatewayCall(nil), g.calls...)
}

// newAgent starts a summarizer that calls gatewayURL.
func newAgent(t testing.TB, gatewayURL string) (*summarizer.Agent, *httptest.Server) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	a, err := summarizer.New(summarizer.Options{
		BaseURL:      "http://" + srv.Listener.Addr().String(),
		DocumentsURL: gatewayURL,
		Credential:   devKey,
		HTTPClient:   &http.Client{Timeout: 5 * time.Second},
		Logger:       slog.New(slog.DiscardHandler),
		Now:          fixedNow,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.Config.Handler = a.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return a, srv
}

type rpcResp struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func call(t testing.TB, url, method string, params any, header http.Header) rpcResp {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out rpcResp
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// answer is a decoded agent message.
type answer struct {
	Kind  string `json:"kind"`
	Role  string `json:"role"`
	Parts []struct {
		Kind string         `json:"kind"`
		Text string         `json:"text"`
		Data map[string]any `json:"data"`
	} `json:"parts"`
}

func (a answer) text() string {
	var sb strings.Builder
	for _, p := range a.Parts {
		if p.Kind == "text" {
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

func decodeAnswer(t testing.TB, r rpcResp) answer {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error %+v", r.Error)
	}
	var v1 struct {
		Message *answer `json:"message"`
	}
	if err := json.Unmarshal(r.Result, &v1); err == nil && v1.Message != nil {
		// The v1.0 shape: {"message":…}, ROLE_AGENT, parts without kind.
		a := *v1.Message
		if a.Kind != "" || a.Role != "ROLE_AGENT" || strings.Contains(string(r.Result), `"kind"`) {
			t.Fatalf("v1.0 result kind/role = %q/%s, want no kind and ROLE_AGENT: %s", a.Kind, a.Role, r.Result)
		}
		for i := range a.Parts {
			if a.Parts[i].Text != "" {
				a.Parts[i].Kind = "text"
			} else if a.Parts[i].Data != nil {
				a.Parts[i].Kind = "data"
			}
		}
		return a
	}
	var a answer
	if err := json.Unmarshal(r.Result, &a); err != nil {
		t.Fatal(err)
	}
	if a.Kind != "message" || a.Role != "agent" {
		t.Fatalf("result kind/role = %s/%s, want message/agent", a.Kind, a.Role)
	}
	return a
}

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
