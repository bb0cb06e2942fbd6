package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode checks Decode against encoding/json and against a slow
// reference duplicate-name checker built on json.Decoder.Token.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		invoke(`{"resourceHandle":"rh_001"}`),
		invoke(`{"resourceHandle":"rh_001","ResourceHandle":"rh_002"}`),
		invoke(`{"ab":1,"a\u0062":2}`),
		invoke(`{"kind":1,"\u212aind":2}`),
		invoke(wideObject(20, "K3")),
		batchOf(3),
		`[1,{"jsonrpc":"2.0","method":"x","id":null},{"jsonrpc":"2.0","method":"y","params":[]}]`,
		`{"jsonrpc":"2\u002e0","\u006dethod":"message\/send","id":"\ud83d\ude00"}`,
		`{"jsonrpc":"2.0","method":"x","id":-0.5e+10}`,
		`[]`, `{}`, `""`, `nul`, `[[[[[[[[[]]]]]]]]]`, "\"\xff\"", `"\ud800"`, ` {"a":1} x`,
	} {
		f.Add([]byte(s))
	}
	lim := Limits{MaxBodyBytes: 1 << 16, MaxBatch: 8, MaxDepth: 16}
	f.Fuzz(func(t *testing.T, body []byte) {
		reqs, _, err := Decode(body, lim)
		ref := referenceCheck(body)
		switch {
		case err == nil:
			checkAccepted(t, body, reqs, ref)
		case errors.Is(err, ErrInvalidUTF8):
			if ref.valid && utf8.Valid(body) && !bytes.Contains(bytes.ToLower(body), []byte(`\ud`)) {
				t.Fatalf("Decode() = %v for valid UTF-8 without surrogate escapes", err)
			}
		case errors.Is(err, ErrTooDeep):
			if ref.valid && ref.depth <= lim.MaxDepth {
				t.Fatalf("Decode() = %v, reference depth %d", err, ref.depth)
			}
		case errors.Is(err, ErrParse):
			if ref.valid {
				t.Fatalf("Decode() = %v, encoding/json accepts the body", err)
			}
		case errors.Is(err, ErrDuplicateKey):
			if ref.valid && !ref.dup && !ref.fold && utf8.Valid(body) {
				t.Fatalf("Decode() = %v, reference finds no duplicate", err)
			}
		}
	})
}

func checkAccepted(t *testing.T, body []byte, reqs []Request, ref refResult) {
	t.Helper()
	if !ref.valid {
		t.Fatalf("Decode() accepted a body encoding/json rejects: %q", body)
	}
	if ref.dup || ref.fold {
		t.Fatalf("Decode() accepted a body with duplicate names (exact %v, case %v): %q", ref.dup, ref.fold, body)
	}
	for i, r := range reqs {
		if r.Err != nil {
			continue
		}
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			ID      json.RawMessage `json:"id"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(r.Raw, &got); err != nil {
			t.Fatalf("element %d: Raw %q does not re-parse: %v", i, r.Raw, err)
		}
		if got.Method != r.Method || !bytes.Equal(got.ID, r.ID) || !bytes.Equal(got.Params, r.Params) || got.JSONRPC != Version {
			t.Fatalf("element %d: encoding/json reads %+v, Decode read method %q id %q params %q",
				i, got, r.Method, r.ID, r.Params)
		}
	}
}

// refResult is what the reference checker found.
type refResult struct {
	valid     bool // encoding/json accepts the body
	depth     int  // deepest nesting
	dup, fold bool // an exact duplicate name, a case-variant name
}

// referenceCheck is a slow, obviously correct checker: it walks the tokens
// encoding/json produces and compares every name of an object with every
// other with ==, and with strings.EqualFold (the folding encoding/json
// matches struct fields with).
func referenceCheck(body []byte) refResult {
	res := refResult{valid: json.Valid(body)}
	if !res.valid {
		return res
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack [][]string // names per open container; nil for arrays
	expectName := func() bool { return len(stack) > 0 && stack[len(stack)-1] != nil && dec.More() }
	for {
		isName := expectName()
		tok, err := dec.Token()
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.valid = false
			return res
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, []string{})
			case '[':
				stack = append(stack, nil)
			default:
				stack = stack[:len(stack)-1]
			}
			res.depth = max(res.depth, len(stack))
		case string:
			if isName {
				res.addName(stack[len(stack)-1], v)
				stack[len(stack)-1] = append(stack[len(stack)-1], v)
				// Skip the value: Token reads it next, and nothing
				// between must be seen as a name.
				if err := skipRefValue(dec, &stack, &res); err != nil {
					res.valid = false
					return res
				}
			}
		}
	}
}

func (r *refResult) addName(seen []string, name string) {
	for _, s := range seen {
		if s == name {
			r.dup = true
		} else if strings.EqualFold(s, name) {
			r.fold = true
		}
	}
}

// skipRefValue reads one value after a name. A container's opening
// delimiter is pushed so that referenceCheck goes on inside it.
func skipRefValue(dec *json.Decoder, stack *[][]string, res *refResult) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok {
		if d == '{' {
			*stack = append(*stack, []string{})
		} else {
			*stack = append(*stack, nil)
		}
		res.depth = max(res.depth, len(*stack))
	}
	return nil
}

// TestReferenceAgreement runs the fuzz property over the test tables, so it
// holds on every `go test` and not only under -fuzz.
func TestReferenceAgreement(t *testing.T) {
	bodies := []string{
		invoke(`{"a":{"b":[{"c":1,"C":2}]}}`),
		invoke(`{"a":{"b":[{"c":1,"d":2}]}}`),
		invoke(`{"x":[{"y":1},{"y":2}],"y":3}`),
		`{"a":[1,{"a":1}],"b":{"a":[]}}`,
		`{"a":{},"A":{}}`,
	}
	for _, body := range bodies {
		ref := referenceCheck([]byte(body))
		_, _, err := Decode([]byte(body), DefaultLimits())
		if gotDup := errors.Is(err, ErrDuplicateKey); gotDup != (ref.dup || ref.fold) {
			t.Errorf("Decode(%s) error %v, reference dup %v fold %v", body, err, ref.dup, ref.fold)
		}
	}
}
