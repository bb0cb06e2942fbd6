package documents_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

func TestFrontRefusesBadInput(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantCode   int
		wantReason string
		wantID     string
	}{
		{"not JSON", `{"jsonrpc":`, 200, -32700, "parse_error", "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"message/send"}]`, 200, -32600, "batch_unsupported", "null"},
		{"scalar", `42`, 200, -32600, "invalid_request", "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":3,"method":"tasks/get"}`, 200, -32600, "invalid_request", "3"},
		{"no method", `{"jsonrpc":"2.0","id":"a"}`, 200, -32600, "invalid_request", `"a"`},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"tasks/get"}`, 200, -32600, "invalid_request", "null"},
		{"gateway method never served here", `{"jsonrpc":"2.0","id":4,"method":"a2a/capabilities/request","params":{}}`, 200, -32601, "method_not_found", "4"},
		{"method names are exact", `{"jsonrpc":"2.0","id":5,"method":"sendmessage","params":{}}`, 200, -32601, "method_not_found", "5"},
		{"too large", `{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`,
			http.StatusRequestEntityTooLarge, -32600, "body_too_large", "null"},
	}
	a, err := documents.New(documents.Options{BaseURL: "http://agent.test", Logger: discardLogger(), Now: fixedNow, MaxBodyBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, srv.URL, tt.body, nil)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			out := decode(t, resp)
			if out.Error == nil || out.Error.Code != tt.wantCode || out.reason() != tt.wantReason {
				t.Fatalf("error = %+v, want %d %s", out.Error, tt.wantCode, tt.wantReason)
			}
			if string(out.ID) != tt.wantID {
				t.Errorf("id = %s, want %s", out.ID, tt.wantID)
			}
		})
	}
	if got := a.Recorder().Count(); got != len(tests) {
		t.Errorf("recorded %d requests, want %d: refused requests are recorded too", got, len(tests))
	}
}

func TestFrontNotification(t *testing.T) {
	_, srv := newServer(t)
	resp := post(t, srv.URL, `{"jsonrpc":"2.0","method":"a2a/resources/resolve","params":{}}`, nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("notification status = %d, want 204", resp.StatusCode)
	}
}

func TestFrontEchoesStringID(t *testing.T) {
	_, srv := newServer(t)
	out := decode(t, post(t, srv.URL, `{"jsonrpc":"2.0","id":"req-\u00e9","method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`, nil))
	if string(out.ID) != `"req-é"` {
		t.Errorf("id = %s", out.ID)
	}
}

type ctxKey struct{}

func TestFrontPrepareSeesCanonicalCallAndCanRefuse(t *testing.T) {
	var seen []documents.Call
	standard := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(ctxKey{}) != "prepared" {
			t.Error("context from Prepare did not reach the standard handler")
		}
		var req struct {
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"method":"` + req.Method + `"}}`))
	})
	front, err := documents.NewFront(documents.FrontConfig{
		Logger: discardLogger(), Now: fixedNow, Card: []byte(`{}`), Standard: standard,
		Prepare: func(ctx context.Context, c documents.Call) (context.Context, error) {
			seen = append(seen, c)
			if strings.Contains(string(c.Params), "refuse-me") {
				return ctx, documents.ErrInvalidParams
			}
			return context.WithValue(ctx, ctxKey{}, "prepared"), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	out := decode(t, post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"capabilities":[{"id":"cap_1"}],"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}}`, nil))
	if string(out.Result) != `{"method":"message/stream"}` {
		t.Errorf("standard handler saw %s, want the v0.3 name", out.Result)
	}
	if len(seen) != 1 || seen[0].Method != "SendStreamingMessage" || seen[0].Canonical != "message/stream" ||
		!strings.Contains(string(seen[0].Params), `"capabilities"`) || !strings.Contains(string(seen[0].Params), `"kind":"text"`) {
		t.Errorf("Prepare saw %+v", seen)
	}
	out = decode(t, post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"refuse-me":true}}`, nil))
	if out.Error == nil || out.Error.Code != -32602 {
		t.Errorf("refused Prepare gave %+v, want -32602", out.Error)
	}
}

func TestFrontConfigValidate(t *testing.T) {
	_, err := documents.NewFront(documents.FrontConfig{MaxBodyBytes: -1})
	if !errors.Is(err, documents.ErrInvalidOptions) {
		t.Fatalf("err = %v, want ErrInvalidOptions", err)
	}
	for _, field := range []string{"Logger", "Now", "Card", "Standard", "MaxBodyBytes"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	ok := documents.Options{BaseURL: "http://127.0.0.1:9101", Logger: discardLogger(), Now: fixedNow}
	tests := []struct {
		name    string
		mutate  func(*documents.Options)
		wantErr error
	}{
		{"valid", func(*documents.Options) {}, nil},
		{"https with path", func(o *documents.Options) { o.BaseURL = "https://docs.example.com/a2a" }, nil},
		{"no base url", func(o *documents.Options) { o.BaseURL = "" }, documents.ErrInvalidOptions},
		{"relative base url", func(o *documents.Options) { o.BaseURL = "/a2a/documents" }, documents.ErrInvalidOptions},
		{"ftp base url", func(o *documents.Options) { o.BaseURL = "ftp://host" }, documents.ErrInvalidOptions},
		{"base url with query", func(o *documents.Options) { o.BaseURL = "http://h/?x=1" }, documents.ErrInvalidOptions},
		{"no logger", func(o *documents.Options) { o.Logger = nil }, documents.ErrInvalidOptions},
		{"no clock", func(o *documents.Options) { o.Now = nil }, documents.ErrInvalidOptions},
		{"negative body limit", func(o *documents.Options) { o.MaxBodyBytes = -1 }, documents.ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.mutate(&o)
			_, err := documents.New(o)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("New err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestToRPCErrorHidesInternalErrors(t *testing.T) {
	got := documents.ToRPCError(errors.New("dial tcp 10.0.0.7:6379: connection refused"))
	if got.Code != -32603 || strings.Contains(got.Message, "10.0.0.7") {
		t.Errorf("internal error leaked: %+v", got)
	}
}
