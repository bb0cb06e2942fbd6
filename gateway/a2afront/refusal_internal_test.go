package a2afront

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// refusalData reads one answer's error: its code and its data as sent,
// undecoded.
func refusalData(tb testing.TB, body []byte) (int, json.RawMessage) {
	tb.Helper()
	var env struct {
		Error *struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error == nil {
		tb.Fatalf("want an error answer, got %s (%v)", body, err)
	}
	return env.Error.Code, env.Error.Data
}

// checkShape asserts that data is capgate's v0.3 object naming reason, or,
// for v1, A2A v1.0's list of one ErrorInfo whose metadata carries reason
// and code.
func checkShape(tb testing.TB, data json.RawMessage, v1 bool, code int, reason string) {
	tb.Helper()
	if !v1 {
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil || obj["reason"] != reason {
			tb.Errorf("want a data object with reason %s, got %s", reason, data)
		}
		return
	}
	var details []jsonrpc.ErrorInfo
	if err := json.Unmarshal(data, &details); err != nil || len(details) != 1 {
		tb.Fatalf("want a list of one typed detail, got %s (%v)", data, err)
	}
	d := details[0]
	if d.Type != jsonrpc.TypeErrorInfo || d.Metadata["reason"] != reason || d.Metadata["code"] != jsonText(code) {
		tb.Errorf("want an ErrorInfo carrying %s and %d, got %s", reason, code, data)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRefusalShapes: a refusal reaches each caller in its generation's
// shape, told by the A2A-Version header or, without one, the method
// name's own generation; in a batch, each element in its own.
func TestRefusalShapes(t *testing.T) {
	tests := []struct {
		name, method, version string
		v1                    bool
	}{
		{"v0.3 name, no header", "message/send", "", false},
		{"v0.3 name, v0.3 header", "message/send", "0.3", false},
		{"v1.0 name, no header", "SendMessage", "", true},
		{"v1.0 name, v1.0 header", "SendMessage", "1.0", true},
	}
	fx := newGatedFixture(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := fx.post(t, aliceKey, "notes", sendBody(tt.method, "read my notes", ""), map[string]string{"A2A-Version": tt.version})
			code, data := refusalData(t, []byte(body))
			if code != jsonrpc.CodeCapabilityRequired {
				t.Fatalf("code %d, want -32040: %s", code, body)
			}
			checkShape(t, data, tt.v1, code, jsonrpc.ReasonCapabilityRequired)
		})
	}
	t.Run("batch", func(t *testing.T) {
		_, body := fx.post(t, aliceKey, "notes", "["+sendBody("message/send", "a", "")+","+sendBody("SendMessage", "b", "")+"]", nil)
		var answers []json.RawMessage
		if err := json.Unmarshal([]byte(body), &answers); err != nil || len(answers) != 2 {
			t.Fatalf("want two answers, got %s", body)
		}
		for i, v1 := range []bool{false, true} {
			code, data := refusalData(t, answers[i])
			checkShape(t, data, v1, code, jsonrpc.ReasonCapabilityRequired)
		}
	})
	t.Run("unknown agent, v1.0 header", func(t *testing.T) {
		_, body := fx.post(t, aliceKey, "nobody", sendBody("SendMessage", "a", ""), map[string]string{"A2A-Version": "1.0"})
		code, data := refusalData(t, []byte(body))
		checkShape(t, data, true, code, "unknown_agent")
	})
}

// TestStreamingRefusals: a refusal of a call whose caller asked for a
// stream (the method streams, or Accept names text/event-stream) is a
// stream of one error event, in the caller's generation's shape; any
// other refusal is plain JSON.
func TestStreamingRefusals(t *testing.T) {
	tests := []struct {
		name, method, accept string
		stream, v1           bool
	}{
		{"v0.3 streaming method", "message/stream", "", true, false},
		{"v1.0 streaming method", "SendStreamingMessage", "", true, true},
		{"unary method, stream accepted", "message/send", "application/json, text/event-stream", true, false},
		{"unary method, stream refused by q=0", "SendMessage", "text/event-stream;q=0, application/json", false, true},
		{"unary method", "SendMessage", "application/json", false, true},
	}
	fx := newGatedFixture(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := chi.NewRouter()
			fx.front.Mount(r)
			req := httptest.NewRequest(http.MethodPost, "/a2a/notes", strings.NewReader(sendBody(tt.method, "read my notes", "")))
			req.Header.Set("Authorization", "Bearer "+aliceKey)
			req.Header.Set("Accept", tt.accept)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			body := w.Body.Bytes()
			if ct := w.Header().Get("Content-Type"); w.Code != http.StatusOK || (ct == "text/event-stream") != tt.stream {
				t.Fatalf("status %d, Content-Type %q; want a stream: %v", w.Code, ct, tt.stream)
			}
			if tt.stream {
				if !bytes.HasPrefix(body, []byte("data: ")) || !bytes.HasSuffix(body, []byte("\n\n")) || bytes.Count(body, []byte("\n")) != 2 {
					t.Fatalf("want one event, got %q", body)
				}
				body = body[len("data: "):]
			}
			code, data := refusalData(t, body)
			if code != jsonrpc.CodeCapabilityRequired {
				t.Fatalf("code %d, want -32040: %s", code, body)
			}
			checkShape(t, data, tt.v1, code, jsonrpc.ReasonCapabilityRequired)
		})
	}
}
