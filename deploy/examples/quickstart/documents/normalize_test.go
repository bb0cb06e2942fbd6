package documents

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

func TestNormalizeSendParams(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		check   func(t *testing.T, p a2a.MessageSendParams, raw map[string]any)
		wantErr error
	}{
		{name: "v1.0 text part and role", in: `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`,
			check: func(t *testing.T, p a2a.MessageSendParams, _ map[string]any) {
				if p.Message.Role != a2a.MessageRoleUser || p.Message.Parts[0].(a2a.TextPart).Text != "hi" {
					t.Errorf("got %+v", p.Message)
				}
			}},
		{name: "v1.0 data part wraps scalars", in: `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"data":42},{"data":{"k":"v"}}]}}`,
			check: func(t *testing.T, p a2a.MessageSendParams, _ map[string]any) {
				if p.Message.Role != a2a.MessageRoleAgent || p.Message.Parts[0].(a2a.DataPart).Data["value"] == nil ||
					p.Message.Parts[1].(a2a.DataPart).Data["k"] != "v" {
					t.Errorf("got %+v", p.Message)
				}
			}},
		{name: "v1.0 file part", in: `{"message":{"messageId":"m","role":"user","parts":[{"url":"https://x/y.pdf","mediaType":"application/pdf","filename":"y.pdf"}]}}`,
			check: func(t *testing.T, p a2a.MessageSendParams, _ map[string]any) {
				fp := p.Message.Parts[0].(a2a.FilePart)
				if uri, ok := fp.File.(a2a.FileURI); !ok || uri.URI != "https://x/y.pdf" || uri.MimeType != "application/pdf" || uri.Name != "y.pdf" {
					t.Errorf("got %+v", fp)
				}
			}},
		{name: "v0.1 type and session", in: `{"id":"t1","sessionId":"s1","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}`,
			check: func(t *testing.T, p a2a.MessageSendParams, _ map[string]any) {
				if p.Message.ID == "" || p.Message.ContextID != "s1" || p.Message.TaskID != "" {
					t.Errorf("got %+v", p.Message)
				}
			}},
		{name: "session never overrides context", in: `{"sessionId":"s1","message":{"contextId":"c1","role":"user","parts":[]}}`,
			check: func(t *testing.T, p a2a.MessageSendParams, _ map[string]any) {
				if p.Message.ContextID != "c1" {
					t.Errorf("contextId = %q", p.Message.ContextID)
				}
			}},
		{name: "extension members kept", in: `{"message":{"messageId":"m","role":"user","parts":[]},"capabilities":[{"id":"cap_1","token":"t"}],"attenuations":{"cap_1":{"operations":["retrieve"]}}}`,
			check: func(t *testing.T, _ a2a.MessageSendParams, raw map[string]any) {
				if raw["capabilities"] == nil || raw["attenuations"] == nil {
					t.Errorf("lost members: %v", raw)
				}
			}},
		{name: "big numbers kept exactly", in: `{"message":{"messageId":"m","role":"user","parts":[]},"metadata":{"n":12345678901234567890}}`,
			check: func(t *testing.T, p a2a.MessageSendParams, raw map[string]any) {
				if n := raw["metadata"].(map[string]any)["n"].(json.Number); n.String() != "12345678901234567890" {
					t.Errorf("n = %v", n)
				}
			}},
		{name: "no message left alone", in: `{"x":1}`},
		{name: "not an object left alone", in: `[1,2]`},
		{name: "broken object", in: `{"message":`, wantErr: ErrInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := NormalizeSendParams(json.RawMessage(tt.in))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.check == nil {
				if err == nil && string(out) != tt.in {
					t.Errorf("changed %s to %s", tt.in, out)
				}
				return
			}
			var p a2a.MessageSendParams
			if err := json.Unmarshal(out, &p); err != nil {
				t.Fatalf("a2a cannot parse %s: %v", out, err)
			}
			var raw map[string]any
			if err := decodeNumbers(out, &raw); err != nil {
				t.Fatal(err)
			}
			tt.check(t, p, raw)
		})
	}
}

func TestCanonicalMethod(t *testing.T) {
	for in, want := range map[string]string{
		"SendMessage": "message/send", "message/send": "message/send", "tasks/send": "message/send", "a2a/task/send": "message/send",
		"SendStreamingMessage": "message/stream", "message/stream": "message/stream", "tasks/sendSubscribe": "message/stream",
		"GetTask": "tasks/get", "tasks/get": "tasks/get", "CancelTask": "tasks/cancel", "tasks/cancel": "tasks/cancel",
	} {
		if got, ok := CanonicalMethod(in); !ok || got != want {
			t.Errorf("CanonicalMethod(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"a2a/skill/invoke", "a2a/resources/resolve", "sendMessage", "message/send ", ""} {
		if got, ok := CanonicalMethod(in); ok {
			t.Errorf("CanonicalMethod(%q) = %q, want not standard", in, got)
		}
	}
}

// FuzzNormalizeSendParams checks the rewrite never panics and always
// yields valid JSON.
func FuzzNormalizeSendParams(f *testing.F) {
	for _, s := range []string{
		`{"message":{"role":"ROLE_USER","parts":[{"text":"hi"},{"data":1},{"url":"u"},{"type":"text","text":"x"}]}}`,
		`{"sessionId":"s","message":{"parts":[null,1,"x",{}]}}`, `null`, `[]`, `{"message":[]}`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		out, err := NormalizeSendParams(in)
		if err != nil {
			return
		}
		if len(out) > 0 && !json.Valid(out) {
			t.Fatalf("invalid JSON out of %q: %q", in, out)
		}
	})
}

// FuzzParseRequest checks the envelope parser never panics, and that what
// it accepts is a JSON-RPC 2.0 request with a method and a scalar id.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, `[{}]`, `{"jsonrpc":"2.0","method":"x"}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":null,"method":"x","method":"y"}`, ` `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		req, err := parseRequest(in)
		if err != nil {
			return
		}
		if req.JSONRPC != "2.0" || req.Method == "" {
			t.Fatalf("accepted %q as %+v", in, req)
		}
		if b, _ := firstByte(req.ID); b == '{' || b == '[' {
			t.Fatalf("accepted a structured id: %q", in)
		}
	})
}

// FuzzDecodeArgs checks the skill-argument parser never panics and never
// accepts arguments that still carry a resource handle.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"resourceId":"reports/q1-sales"}`, `{"resourceIds":["a","b"],"query":"q"}`, `{"resourceHandle":"rh_1"}`,
		`{"ResourceID":"x","resourceId":"y"}`, `{"content":null}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if _, err := decodeArgs(in); err != nil {
			return
		}
		keys, _ := objectKeys(in)
		for _, k := range keys {
			if k == "resourceHandle" || k == "resourceHandles" {
				t.Fatalf("accepted a handle: %q", in)
			}
		}
	})
}
