package loadtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestScanEnvelope(t *testing.T) {
	tests := []struct {
		name                       string
		in                         string
		wantOK                     bool
		wantID, wantMethod, wantRe string
		wantErr                    string
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":7,"method":"a2a/skill/invoke","params":{"id":9,"method":"x"}}`,
			wantOK: true, wantID: `7`, wantMethod: `"a2a/skill/invoke"`},
		{name: "string id and spaces", in: " {\n \"id\" : \"a\\\"b\" , \"method\":\"m\" }\t",
			wantOK: true, wantID: `"a\"b"`, wantMethod: `"m"`},
		{name: "result with nested strings", in: `{"id":null,"result":{"s":"}]\\","a":[1,{"b":"{"}]}}`,
			wantOK: true, wantID: `null`, wantRe: `{"s":"}]\\","a":[1,{"b":"{"}]}`},
		{name: "error member", in: `{"id":1,"error":{"code":-32041}}`, wantOK: true, wantID: `1`, wantErr: `{"code":-32041}`},
		{name: "case-variant error member counts", in: `{"id":1,"result":{},"ERROR":{"code":1}}`,
			wantOK: true, wantID: `1`, wantRe: `{}`, wantErr: `{"code":1}`},
		{name: "duplicate id: last wins", in: `{"id":1,"id":2}`, wantOK: true, wantID: `2`},
		{name: "empty object", in: `{}`, wantOK: true},
		{name: "array", in: `[{"id":1}]`},
		{name: "not JSON", in: `<html>`},
		{name: "empty", in: ``},
		{name: "unterminated string", in: `{"id":"abc}`},
		{name: "unterminated object", in: `{"id":1,"result":{"a":1}`},
		{name: "missing colon", in: `{"id" 1}`},
		{name: "missing value", in: `{"id":}`},
		{name: "trailing garbage", in: `{"id":1}x`},
		{name: "trailing comma and brace", in: `{"id":1,}`},
		{name: "two objects", in: `{"id":1}{"id":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, ok := scanEnvelope([]byte(tt.in))
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			for _, c := range []struct{ name, got, want string }{
				{"id", string(env.id), tt.wantID}, {"method", string(env.method), tt.wantMethod},
				{"result", string(env.result), tt.wantRe}, {"error", string(env.err), tt.wantErr},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
				}
			}
		})
	}
}

func TestCheckResponse(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		wantErr error
	}{
		{"result", 200, `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`, nil},
		{"result null", 200, `{"jsonrpc":"2.0","id":1,"result":null}`, nil},
		{"JSON-RPC error", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32043,"message":"capability revoked"}}`, ErrRPCError},
		{"result and error", 200, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32041}}`, ErrRPCError},
		{"error in another case", 200, `{"jsonrpc":"2.0","id":1,"result":{},"Error":{"code":-32041}}`, ErrRPCError},
		{"error nested in result is not an error", 200, `{"id":1,"result":{"error":"none"}}`, nil},
		{"no result", 200, `{"jsonrpc":"2.0","id":1}`, ErrMalformedResponse},
		{"HTML", 200, `<html>ok</html>`, ErrMalformedResponse},
		{"batch answer", 200, `[{"jsonrpc":"2.0","id":1,"result":{}}]`, ErrMalformedResponse},
		{"401", 401, `{"error":"unauthorized"}`, ErrStatus},
		{"502 with a result", 502, `{"jsonrpc":"2.0","id":1,"result":{}}`, ErrStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckResponse(tt.status, []byte(tt.body))
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("CheckResponse = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestCheckResponseBoundsTheQuote(t *testing.T) {
	err := CheckResponse(500, bytes.Repeat([]byte("x"), 10_000))
	if err == nil || len(err.Error()) > maxSnippet+100 {
		t.Fatalf("error of %d bytes: a bad answer must be quoted briefly", len(err.Error()))
	}
}

func TestCheckResponseDoesNotAllocate(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"message","parts":[{"kind":"text","text":"ok"}]}}`)
	if n := testing.AllocsPerRun(100, func() { _ = CheckResponse(200, body) }); n != 0 {
		t.Fatalf("CheckResponse allocates %.0f times on a good answer, want 0", n)
	}
}

// FuzzScanEnvelope checks that the walk never panics, walks every JSON
// object encoding/json accepts, refuses every non-object, and finds the
// same members encoding/json does.
func FuzzScanEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{}}`, `{"id":"x","result":[1,"]",{}]}`,
		`{"error":{"code":1},"id":null}`, `[]`, `"id"`, `{"a":"\\"}`, `{"id":1,"id":[{"}":"{"}]}`, ` { } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, ok := scanEnvelope(b)
		if !json.Valid(b) {
			return
		}
		var m map[string]json.RawMessage
		isObject := json.Unmarshal(b, &m) == nil && m != nil
		if ok != isObject {
			t.Fatalf("scanEnvelope ok = %v, but encoding/json says object = %v: %q", ok, isObject, b)
		}
		if !ok || bytes.ContainsRune(b, '\\') {
			return // escaped keys are compared as written, by design
		}
		for key, got := range map[string][]byte{"id": env.id, "method": env.method, "result": env.result} {
			want, present := m[key]
			if present != (got != nil) || (present && !bytes.Equal(got, want)) {
				t.Fatalf("member %s = %q, encoding/json has %q (present %v): %q", key, got, want, present, b)
			}
		}
	})
}
