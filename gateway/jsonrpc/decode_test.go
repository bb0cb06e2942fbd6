package jsonrpc

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// invoke builds an a2a/skill/invoke request around the given arguments.
func invoke(args string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","arguments":` +
		args + `,"capabilityId":"cap_7f3a9b"}}`
}

// TestDecodeWholeBody covers the problems that fail the whole body.
func TestDecodeWholeBody(t *testing.T) {
	lim := DefaultLimits()
	tests := []struct {
		name    string
		body    string
		wantErr error
	}{
		{"valid", invoke(`{"resourceHandle":"rh_001"}`), nil},
		{"empty body", ``, ErrParse},
		{"only whitespace", " \n\t\r ", ErrParse},
		{"not JSON", `hello`, ErrParse},
		{"truncated", `{"jsonrpc":"2.0","method":"x"`, ErrParse},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"x"}x`, ErrParse},
		{"second value", `{"jsonrpc":"2.0","method":"x"} {"jsonrpc":"2.0","method":"y"}`, ErrParse},
		{"trailing comma", `{"jsonrpc":"2.0","method":"x",}`, ErrParse},
		{"single quotes", `{'jsonrpc':'2.0'}`, ErrParse},
		{"BOM", "\xef\xbb\xbf" + `{"jsonrpc":"2.0","method":"x"}`, ErrParse},
		{"NUL after value", `{"jsonrpc":"2.0","method":"x"}` + "\x00", ErrParse},
		{"raw control char in string", "{\"jsonrpc\":\"2.0\",\"method\":\"a\x01\"}", ErrParse},
		{"bad escape", `{"jsonrpc":"2.0","method":"\x"}`, ErrParse},
		{"leading zero", `{"jsonrpc":"2.0","method":"x","id":01}`, ErrParse},
		{"NaN", `{"jsonrpc":"2.0","method":"x","id":NaN}`, ErrParse},
		{"whitespace everywhere", " \r\n\t{ \"jsonrpc\" :\t\"2.0\" ,\n\"method\" : \"x\" } \n", nil},
		{"huge integer id", `{"jsonrpc":"2.0","method":"x","id":` + strings.Repeat("9", 5000) + `}`, nil},
		{"huge exponent", `{"jsonrpc":"2.0","method":"x","id":1e999999999}`, nil},
		{"invalid UTF-8 in value", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"\xff\"]}", ErrInvalidUTF8},
		{"invalid UTF-8 in name", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"a\xc3\":1}}", ErrInvalidUTF8},
		{"overlong encoding", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"\xc0\xaf\"]}", ErrInvalidUTF8},
		{"UTF-8 encoded surrogate", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"\xed\xa0\x80\"]}", ErrInvalidUTF8},
		{"lone high surrogate escape", `{"jsonrpc":"2.0","method":"x","params":["\ud800"]}`, ErrInvalidUTF8},
		{"lone low surrogate escape", `{"jsonrpc":"2.0","method":"x","params":["\udc00x"]}`, ErrInvalidUTF8},
		{"reversed surrogates", `{"jsonrpc":"2.0","method":"x","params":["\udc00\ud800"]}`, ErrInvalidUTF8},
		{"surrogate pair", `{"jsonrpc":"2.0","method":"x","params":["\ud83d\ude00"]}`, nil},
		{"too deep", `{"jsonrpc":"2.0","method":"x","params":` + nest(64) + `}`, ErrTooDeep},
		{"deep at limit", `{"jsonrpc":"2.0","method":"x","params":` + nest(63) + `}`, nil},
		{"deep batch", `[` + nest(64) + `]`, ErrTooDeep},
		{"empty batch", `[]`, ErrEmptyBatch},
		{"empty batch with spaces", ` [ ] `, ErrEmptyBatch},
		{"batch too large", batchOf(33), ErrBatchTooLarge},
		{"batch at limit", batchOf(32), nil},
		{"body too large", `{"jsonrpc":"2.0","method":"x","params":["` + strings.Repeat("a", 1<<20) + `"]}`, ErrBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, _, err := Decode([]byte(tt.body), lim)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && reqs != nil {
				t.Fatalf("Decode() returned %d requests with error %v", len(reqs), err)
			}
			for i, r := range reqs {
				if r.Err != nil {
					t.Errorf("element %d: unexpected Err %v", i, r.Err)
				}
			}
		})
	}
}

// TestDecodeDuplicateKeys covers the attack the checker exists for: two
// readings of one member, anywhere in the body.
func TestDecodeDuplicateKeys(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr error
	}{
		{"top-level duplicate method", `{"jsonrpc":"2.0","method":"tasks/get","method":"a2a/capabilities/revoke"}`, ErrDuplicateKey},
		{"top-level case-variant method", `{"jsonrpc":"2.0","method":"tasks/get","Method":"x"}`, ErrCaseVariantKey},
		{"duplicate in params", `{"jsonrpc":"2.0","method":"x","params":{"capabilityId":"a","capabilityId":"b"}}`, ErrDuplicateKey},
		{"case variant in params", `{"jsonrpc":"2.0","method":"x","params":{"capabilityId":"a","CapabilityID":"b"}}`, ErrCaseVariantKey},
		{"duplicate in arguments", invoke(`{"resourceHandle":"rh_001","resourceHandle":"rh_999"}`), ErrDuplicateKey},
		{"case variant in arguments", invoke(`{"resourceHandle":"rh_001","RESOURCEHANDLE":"rh_999"}`), ErrCaseVariantKey},
		{"escaped duplicate", invoke(`{"ab":1,"a\u0062":2}`), ErrDuplicateKey},
		{"escaped both", invoke(`{"\u0061b":1,"a\u0062":2}`), ErrDuplicateKey},
		{"escaped solidus", invoke(`{"a/b":1,"a\/b":2}`), ErrDuplicateKey},
		{"escaped case variant", invoke(`{"ab":1,"\u0041B":2}`), ErrCaseVariantKey},
		{"kelvin sign folds to k", invoke(`{"kind":1,"\u212aind":2}`), ErrCaseVariantKey},
		{"long s folds to s", invoke(`{"skill":1,"\u017fkill":2}`), ErrCaseVariantKey},
		{"raw UTF-8 kelvin sign", invoke("{\"kind\":1,\"\u212aind\":2}"), ErrCaseVariantKey},
		{"greek sigma variants", invoke(`{"σ":1,"ς":2}`), ErrCaseVariantKey},
		{"duplicate inside array element", invoke(`{"list":[{"a":1},{"b":1,"b":2}]}`), ErrDuplicateKey},
		{"duplicate in batch element", `[{"jsonrpc":"2.0","method":"x","id":1,"id":2}]`, ErrDuplicateKey},
		{"deeply nested duplicate", invoke(`{"a":{"b":{"c":{"d":{"e":1,"e":2}}}}}`), ErrDuplicateKey},
		{"duplicate in large object", invoke(wideObject(100, "k50")), ErrDuplicateKey},
		{"case variant in large object", invoke(wideObject(100, "K50")), ErrCaseVariantKey},
		{"same name in sibling objects is fine", invoke(`{"a":{"x":1},"b":{"x":2}}`), nil},
		{"same name at different depths is fine", invoke(`{"x":{"x":{"x":1}}}`), nil},
		{"same name after nested object closes", invoke(`{"a":{"b":1},"b":2}`), nil},
		{"large object without duplicates", invoke(wideObject(100, "")), nil},
		{"sharp s is not SS", invoke(`{"ß":1,"SS":2}`), nil},
		{"sharp s and capital sharp s", invoke(`{"ß":1,"\u1e9e":2}`), ErrCaseVariantKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.body), DefaultLimits())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode() error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == ErrDuplicateKey && errors.Is(err, ErrCaseVariantKey) {
				t.Fatalf("Decode() error = %v, want an exact duplicate", err)
			}
		})
	}
}

// TestDecodeElement covers the rules for one request object.
func TestDecodeElement(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantMethod string
		wantID     string
		wantParams string
		wantErr    error
	}{
		{"full", `{"jsonrpc":"2.0","id":"a","method":"tasks/get","params":{"id":"t1"}}`, "tasks/get", `"a"`, `{"id":"t1"}`, nil},
		{"member order free", `{"params":[1],"method":"x","id":7,"jsonrpc":"2.0"}`, "x", `7`, `[1]`, nil},
		{"notification", `{"jsonrpc":"2.0","method":"x"}`, "x", ``, ``, nil},
		{"null id", `{"jsonrpc":"2.0","method":"x","id":null}`, "x", `null`, ``, nil},
		{"negative fractional id", `{"jsonrpc":"2.0","method":"x","id":-1.5e3}`, "x", `-1.5e3`, ``, nil},
		{"escaped member names", `{"j\u0073onrpc":"2.0","\u006dethod":"x"}`, "x", ``, ``, nil},
		{"escaped version", `{"jsonrpc":"2\u002e0","method":"x"}`, "x", ``, ``, nil},
		{"escaped method", `{"jsonrpc":"2.0","method":"message\/send"}`, "message/send", ``, ``, nil},
		{"unicode method", `{"jsonrpc":"2.0","method":"caf\u00e9"}`, "café", ``, ``, nil},
		{"number body", `1`, "", ``, ``, ErrInvalidRequest},
		{"string body", `"x"`, "", ``, ``, ErrInvalidRequest},
		{"no jsonrpc", `{"method":"x","id":1}`, "", `1`, ``, ErrInvalidRequest},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","method":"x","id":1}`, "", `1`, ``, ErrInvalidRequest},
		{"jsonrpc number", `{"jsonrpc":2.0,"method":"x"}`, "", ``, ``, ErrInvalidRequest},
		{"jsonrpc with space", `{"jsonrpc":"2.0 ","method":"x"}`, "", ``, ``, ErrInvalidRequest},
		{"no method", `{"jsonrpc":"2.0","id":1}`, "", `1`, ``, ErrInvalidRequest},
		{"empty method", `{"jsonrpc":"2.0","method":""}`, "", ``, ``, ErrInvalidRequest},
		{"method number", `{"jsonrpc":"2.0","method":1}`, "", ``, ``, ErrInvalidRequest},
		{"method null", `{"jsonrpc":"2.0","method":null}`, "", ``, ``, ErrInvalidRequest},
		{"method control char", `{"jsonrpc":"2.0","method":"tasks/get\u0000"}`, "", ``, ``, ErrInvalidRequest},
		{"method newline", `{"jsonrpc":"2.0","method":"a\nb"}`, "", ``, ``, ErrInvalidRequest},
		{"id object", `{"jsonrpc":"2.0","method":"x","id":{}}`, "", ``, ``, ErrInvalidRequest},
		{"id array", `{"jsonrpc":"2.0","method":"x","id":[1]}`, "", ``, ``, ErrInvalidRequest},
		{"id bool", `{"jsonrpc":"2.0","method":"x","id":true}`, "", ``, ``, ErrInvalidRequest},
		{"params string", `{"jsonrpc":"2.0","method":"x","id":1,"params":"bar"}`, "", `1`, ``, ErrInvalidRequest},
		{"params null", `{"jsonrpc":"2.0","method":"x","id":1,"params":null}`, "", `1`, ``, ErrInvalidRequest},
		{"unknown member", `{"jsonrpc":"2.0","method":"x","id":1,"capabilityId":"c"}`, "", `1`, ``, ErrInvalidRequest},
		{"result member", `{"jsonrpc":"2.0","method":"x","id":1,"result":1}`, "", `1`, ``, ErrInvalidRequest},
		{"response object", `{"jsonrpc":"2.0","id":1,"result":1}`, "", `1`, ``, ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, batch, err := Decode([]byte(tt.body), DefaultLimits())
			if err != nil || len(reqs) != 1 {
				t.Fatalf("Decode() = %d requests, batch %v, error %v; want one element", len(reqs), batch, err)
			}
			r := reqs[0]
			if !errors.Is(r.Err, tt.wantErr) {
				t.Fatalf("Request.Err = %v, want %v", r.Err, tt.wantErr)
			}
			if r.Method != tt.wantMethod || string(r.ID) != tt.wantID || string(r.Params) != tt.wantParams {
				t.Errorf("got method %q id %q params %q, want %q %q %q",
					r.Method, r.ID, r.Params, tt.wantMethod, tt.wantID, tt.wantParams)
			}
			if tt.wantErr == nil && r.JSONRPC != Version {
				t.Errorf("JSONRPC = %q, want %q", r.JSONRPC, Version)
			}
			if string(r.Raw) != strings.TrimSpace(tt.body) {
				t.Errorf("Raw = %s, want the body", r.Raw)
			}
		})
	}
}

// TestDecodeBatch covers a batch with valid and invalid elements.
func TestDecodeBatch(t *testing.T) {
	body := `[
		{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}},
		1,
		{"jsonrpc":"2.0","method":"notify"},
		{"jsonrpc":"2.0","id":"x","method":"a2a/skill/invoke","params":"no"},
		{"foo":"bar"},
		[],
		{"jsonrpc":"2.0","id":4,"method":"SendMessage"}
	]`
	reqs, batch, err := Decode([]byte(body), DefaultLimits())
	if err != nil || !batch {
		t.Fatalf("Decode() batch %v error %v, want a batch", batch, err)
	}
	want := []struct {
		method, id string
		invalid    bool
		notify     bool
		raw        string
	}{
		{"tasks/get", `1`, false, false, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}`},
		{"", ``, true, false, `1`},
		{"notify", ``, false, true, `{"jsonrpc":"2.0","method":"notify"}`},
		{"", `"x"`, true, false, `{"jsonrpc":"2.0","id":"x","method":"a2a/skill/invoke","params":"no"}`},
		{"", ``, true, false, `{"foo":"bar"}`},
		{"", ``, true, false, `[]`},
		{"SendMessage", `4`, false, false, `{"jsonrpc":"2.0","id":4,"method":"SendMessage"}`},
	}
	if len(reqs) != len(want) {
		t.Fatalf("got %d elements, want %d", len(reqs), len(want))
	}
	for i, w := range want {
		r := reqs[i]
		if r.Method != w.method || string(r.ID) != w.id || (r.Err != nil) != w.invalid ||
			r.IsNotification() != w.notify || string(r.Raw) != w.raw {
			t.Errorf("element %d = {%q %s err=%v notify=%v raw=%s}, want %+v",
				i, r.Method, r.ID, r.Err, r.IsNotification(), r.Raw, w)
		}
		if r.Err != nil && (r.Params != nil || r.JSONRPC != "") {
			t.Errorf("element %d is invalid but carries params %s or version %q", i, r.Params, r.JSONRPC)
		}
	}
}

func TestDecodeInvalidLimits(t *testing.T) {
	_, _, err := Decode([]byte(`{"jsonrpc":"2.0","method":"x"}`), Limits{})
	if !errors.Is(err, ErrInvalidLimits) {
		t.Fatalf("Decode() error = %v, want %v", err, ErrInvalidLimits)
	}
}

// nest returns n nested arrays around 1.
func nest(n int) string {
	return strings.Repeat("[", n) + "1" + strings.Repeat("]", n)
}

// batchOf returns a batch of n valid requests.
func batchOf(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tasks/get"}`)
	}
	b.WriteByte(']')
	return b.String()
}

// wideObject returns an object with members k0..k(n-1), plus extra if set.
func wideObject(n int, extra string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	if extra != "" {
		b.WriteString(`,"` + extra + `":2`)
	}
	b.WriteByte('}')
	return b.String()
}

// TestDecodeHostileShapes checks shapes built to make the checker slow or
// large: they must still be judged correctly.
func TestDecodeHostileShapes(t *testing.T) {
	lim := DefaultLimits()
	tests := []struct {
		name    string
		body    string
		wantErr error
	}{
		{"20k members", `{"jsonrpc":"2.0","method":"x","params":` + wideObject(20000, "") + `}`, nil},
		{"20k members, first and last collide", `{"jsonrpc":"2.0","method":"x","params":` + wideObject(20000, "K0") + `}`, ErrCaseVariantKey},
		{"long colliding names", invoke(`{"` + strings.Repeat("a", 50000) + `":1,"` + strings.Repeat("A", 50000) + `":2}`), ErrCaseVariantKey},
		{"many one-element arrays", `[` + strings.TrimSuffix(strings.Repeat(`1,`, 200000), ",") + `]`, ErrBatchTooLarge},
		{"deep objects at the limit", strings.Repeat(`{"a":`, 64) + `1` + strings.Repeat(`}`, 64), nil},
		{"deep objects over the limit", strings.Repeat(`{"a":`, 65) + `1` + strings.Repeat(`}`, 65), ErrTooDeep},
		{"unclosed deep arrays", strings.Repeat(`[`, 100000), ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.body), lim)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode() error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
