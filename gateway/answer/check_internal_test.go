package answer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestCheckAnswer covers the check's outcomes: accepted, not JSON (the
// hop fails), refused with a *jsonrpc.Error that names the rule broken.
func TestCheckAnswer(t *testing.T) {
	strict, err := newStrict()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		wantErr      error
		wantDetail   string
	}{
		{"fine", `{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[]}}`, nil, ""},
		{"content in any case", `{"result":{"parts":[{"data":{"ID":1,"Status":2}}],"metadata":{"Kind":1}},"Extra":1}`, nil, ""},
		{"not JSON", `<html>`, ErrNotJSON, ""},
		{"truncated", `{"result":`, ErrNotJSON, ""},
		{"ID for id", `{"ID":1,"result":{}}`, jsonrpc.ErrMisspelledKey, "case_variant_key"},
		{"Error for error", `{"id":1,"Error":{"code":1}}`, jsonrpc.ErrMisspelledKey, "case_variant_key"},
		// The processors find a task's members under case folding, as a
		// case-insensitive client does: these are theirs to read.
		{"ſtatus in a result", `{"result":{"ſtatus":{}}}`, nil, ""},
		{"a skill result's own names", `{"result":{"ID":42,"Status":"ok","Kind":"report"}}`, nil, ""},
		{"TotalSize, which the listing filter finds", `{"result":{"tasks":[],"TotalSize":3}}`, nil, ""},
		{"case variant in a listed task", `{"result":{"tasks":[{"TaskId":"t"}]}}`, nil, ""},
		{"repeated member", `{"id":1,"id":1}`, jsonrpc.ErrDuplicateKey, "duplicate_key"},
		{"lone surrogate", `{"result":"\udc00"}`, jsonrpc.ErrInvalidUTF8, "invalid_utf8"},
		{"too deep", strings.Repeat("[", answerDepth+1) + strings.Repeat("]", answerDepth+1), jsonrpc.ErrTooDeep, "nesting_too_deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkAnswer([]byte(tt.answer), strict)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("checkAnswer(%s) = %v, want %v", tt.answer, err, tt.wantErr)
			}
			var e *jsonrpc.Error
			if errors.As(err, &e) != (tt.wantDetail != "") || e != nil && e.Data.(map[string]any)["detail"] != tt.wantDetail {
				t.Fatalf("checkAnswer(%s) refusal %+v, want detail %q", tt.answer, e, tt.wantDetail)
			}
		})
	}
}

// requestCheck reports whether jsonrpc.Decode, the caller's codec, would
// accept text as a body, its batch rules aside, at the answer's depth.
func requestCheck(text []byte) error {
	lim := jsonrpc.Limits{MaxBodyBytes: jsonrpc.MaxBodyBytesCeiling, MaxBatch: jsonrpc.MaxBatchCeiling, MaxDepth: answerDepth}
	_, _, err := jsonrpc.Decode(text, lim)
	if errors.Is(err, jsonrpc.ErrEmptyBatch) || errors.Is(err, jsonrpc.ErrBatchTooLarge) {
		return nil
	}
	return err
}

// envelopeVariant reports whether the response object resp has a member
// spelled otherwise than jsonrpc, id, result or error but equal to one
// of them under encoding/json's folding.
func envelopeVariant(resp []byte) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal(resp, &env) != nil {
		return false
	}
	for k := range env {
		for _, name := range []string{"jsonrpc", "id", "result", "error"} {
			if k != name && strings.EqualFold(k, name) {
				return true
			}
		}
	}
	return false
}

// FuzzStrictAnswer feeds arbitrary unary answers through processUnary:
// the chain never sees what the caller's codec would refuse for the same
// bytes, nor a response whose envelope a case-insensitive client reads
// otherwise; and what reaches the caller is, for each response, what the
// chain returned or the gateway's refusal, never the upstream's bytes.
func FuzzStrictAnswer(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[]}}`, `{"jsonrpc":"2.0","id":1,"Result":{}}`, `{"result":1,"result":2}`, `{"id":1,"iD":2}`,
		`[{"result":1},{"Error":{}}]`, `{"result":{"tasks":[{"ID":"t"}]}}`, "{\"result\":\"\xff\"}",
		`{"r\u0065sult":{"ſtatus":1}}`, `{"result":{"a":{"b":1,"B":2}}}`, `[]`, `<html>`, ` {"id":1} `,
	} {
		f.Add(s)
	}
	strict, err := newStrict()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		var seen int
		tag := func(_ context.Context, resp json.RawMessage, _ bool) (json.RawMessage, bool, error) {
			if err := requestCheck(resp); err != nil {
				t.Fatalf("the chain was given %q, which the request codec refuses: %v", resp, err)
			}
			if envelopeVariant(resp) {
				t.Fatalf("the chain was given %q, whose envelope a client reads otherwise", resp)
			}
			seen++
			return json.RawMessage(`{"seen":1}`), false, nil
		}
		check := func(_ context.Context, resp []byte) (bool, error) { return checkAnswer(resp, strict) }
		out, err := processUnary(context.Background(), tag, check, json.RawMessage("7"), []byte(answer))
		if err != nil || len(out) == 0 || strings.TrimSpace(answer) == "" {
			return
		}
		var resps []json.RawMessage
		if out[0] != '[' {
			resps = []json.RawMessage{out}
		} else if json.Unmarshal(out, &resps) != nil {
			t.Fatalf("the caller got %q", out)
		}
		for _, r := range resps {
			var v struct {
				Error *jsonrpc.Error `json:"error"`
			}
			if string(r) != `{"seen":1}` && (json.Unmarshal(r, &v) != nil || v.Error == nil) {
				t.Fatalf("the caller got %q for %q, neither processed nor refused", r, answer)
			}
		}
	})
}
