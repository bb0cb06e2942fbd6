package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// responseNames reads a JSON-RPC response and, in its result, a task's
// id and status, and the id of each listed task.
func responseNames() *Names {
	task := NewNames(map[string]*Names{"id": nil, "status": nil})
	result := NewNames(map[string]*Names{"id": nil, "status": nil, "task": task, "tasks": task})
	return NewNames(map[string]*Names{"jsonrpc": nil, "id": nil, "result": result, "error": nil})
}

// checkStrict checks text once with a new Strict.
func checkStrict(t testing.TB, text []byte, maxDepth int, names *Names) error {
	t.Helper()
	s, err := NewStrict(maxDepth, names)
	if err != nil {
		t.Fatal(err)
	}
	return s.Check(text)
}

func TestStrict(t *testing.T) {
	names := responseNames()
	tests := []struct {
		name    string
		text    string
		names   *Names
		wantErr error
	}{
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1"}}}`, names, nil},
		{"no names read", `{"Result":1}`, nil, nil},
		{"escaped exact name", `{"r\u0065sult":{"\u0069d":"t1"}}`, names, nil},
		{"other names pass in any case", `{"result":{"Parts":[],"ID_":1},"Extra":true}`, names, nil},
		{"below the tree nothing is read", `{"result":{"task":{"status":{"ID":1}},"data":{"Status":2}}}`, names, nil},
		{"error members are not read", `{"error":{"Code":1,"Message":"x"}}`, names, nil},
		{"case-variant envelope member", `{"jsonrpc":"2.0","id":1,"Result":{}}`, names, ErrMisspelledKey},
		{"upper-case id", `{"ID":1,"result":{}}`, names, ErrMisspelledKey},
		{"escaped case variant", `{"\u0052esult":{}}`, names, ErrMisspelledKey},
		{"Unicode folding", `{"result":{"ſtatus":{}}}`, names, ErrMisspelledKey},
		{"nested in the result", `{"result":{"task":{"Id":"t1"}}}`, names, ErrMisspelledKey},
		{"in a listed task", `{"result":{"tasks":[{"id":"t1"},{"iD":"t2"}]}}`, names, ErrMisspelledKey},
		{"in each element of an array", `[{"result":1},{"Error":{}}]`, names, ErrMisspelledKey},
		{"duplicate", `{"result":1,"result":2}`, names, ErrDuplicateKey},
		{"duplicate deep in content", `{"result":{"data":{"a":[{"x":1,"x":2}]}}}`, names, ErrDuplicateKey},
		{"case-variant pair", `{"result":1,"RESULT":2}`, nil, ErrCaseVariantKey},
		{"invalid UTF-8", "{\"result\":\"\xff\"}", names, ErrInvalidUTF8},
		{"lone surrogate", `{"result":"\ud800"}`, names, ErrInvalidUTF8},
		{"not JSON", `{"result":`, names, ErrParse},
		{"trailing data", `{} {}`, names, ErrParse},
		{"too deep", nest(9), nil, ErrTooDeep},
		{"deep at limit", nest(8), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkStrict(t, []byte(tt.text), 8, tt.names)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Check(%s) = %v, want %v", tt.text, err, tt.wantErr)
			}
		})
	}
}

func TestStrictMisspelledMessage(t *testing.T) {
	err := checkStrict(t, []byte(`{"id":1,"Result":{}}`), 8, responseNames())
	want := `jsonrpc: member name differs in case from the name read: "Result" must be spelled "result" at offset 8`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if e := ErrorFor(err); e.Code != CodeInvalidRequest || e.Reason() != ReasonDuplicateKey {
		t.Fatalf("ErrorFor = %+v", e)
	}
}

// TestStrictBothSpellingsRead: when two names read in one object fold
// alike, each is accepted as written; a third spelling is not.
func TestStrictBothSpellingsRead(t *testing.T) {
	names := NewNames(map[string]*Names{"id": nil, "ID": nil})
	for text, wantErr := range map[string]error{`{"id":1}`: nil, `{"ID":1}`: nil, `{"Id":1}`: ErrMisspelledKey} {
		if err := checkStrict(t, []byte(text), 8, names); !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Errorf("Check(%s) = %v, want %v", text, err, wantErr)
		}
	}
}

func TestNewStrictLimits(t *testing.T) {
	for _, depth := range []int{0, -1, MaxDepthCeiling + 1} {
		if _, err := NewStrict(depth, nil); !errors.Is(err, ErrInvalidLimits) {
			t.Errorf("depth %d: %v, want ErrInvalidLimits", depth, err)
		}
	}
	if err := checkStrict(t, []byte(`{}`), MaxDepthCeiling, nil); err != nil {
		t.Errorf("depth ceiling: %v", err)
	}
}

// TestStrictReuse: the scratch memory one check leaves, grown or not,
// changes nothing for the next, also when checks run at once.
func TestStrictReuse(t *testing.T) {
	s, err := NewStrict(16, responseNames())
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]error{
		`{"result":` + wideObject(200, "k") + `}`:       nil,
		`{"result":{"a":{"k1":1}},"x":` + nest(3) + `}`: nil,
		`{"result":{"ID":1}}`:                           ErrMisspelledKey,
		`{"result":{"k1":1,"a":{"k1":1},"k1":2}}`:       ErrDuplicateKey,
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for text, wantErr := range texts {
					if err := s.Check([]byte(text)); !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
						t.Errorf("Check(%.40s…) = %v, want %v", text, err, wantErr)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// FuzzStrict: Strict without names accepts exactly what Decode accepts as
// a whole body (its batch rules aside), and refuses it for the same
// reason; with names it refuses everything Decode refuses, and beyond
// that only a member spelled otherwise than a name read, which a
// reference walk over encoding/json's decoding finds too. The Stricts are
// reused across inputs, as on the gateway's hot path.
func FuzzStrict(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{}}}}`,
		`{"jsonrpc":"2.0","id":1,"Result":{}}`, `{"result":{"tasks":[{"ID":"t"}]}}`,
		`{"result":1,"result":2}`, `{"r\u0065sult":{"ſtatus":1}}`, `[{"id":1},{"Id":2}]`,
		"{\"result\":\"\xff\"}", `{"result":"\udc00"}`, `[[[[[[[[[[1]]]]]]]]]]`, `[]`, `{} x`,
	} {
		f.Add([]byte(s))
	}
	names := responseNames()
	lim := Limits{MaxBodyBytes: MaxBodyBytesCeiling, MaxBatch: MaxBatchCeiling, MaxDepth: 8}
	plainStrict, err := NewStrict(lim.MaxDepth, nil)
	if err != nil {
		f.Fatal(err)
	}
	namedStrict, err := NewStrict(lim.MaxDepth, names)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		plain := plainStrict.Check(text)
		_, _, decoded := Decode(text, lim)
		if errors.Is(decoded, ErrEmptyBatch) || errors.Is(decoded, ErrBatchTooLarge) {
			decoded = nil
		}
		if (plain == nil) != (decoded == nil) || plain != nil && classifyCode(plain) != classifyCode(decoded) {
			t.Fatalf("Check = %v, Decode = %v", plain, decoded)
		}
		named := namedStrict.Check(text)
		switch {
		case plain != nil && named == nil:
			t.Fatalf("with names Check accepts what it refuses without: %v", plain)
		case plain == nil && (named != nil) != misspelled(t, text, names):
			t.Fatalf("Check with names = %v; the reference disagrees on %q", named, text)
		case plain == nil && named != nil && !errors.Is(named, ErrMisspelledKey):
			t.Fatalf("Check with names = %v, want ErrMisspelledKey", named)
		}
	})
}

func classifyCode(err error) string {
	code, reason := classify(err)
	return fmt.Sprint(code, reason)
}

// misspelled is the reference: it decodes text (which passed the checker,
// so every object's names are distinct) and walks the tree of names.
func misspelled(t *testing.T, text []byte, names *Names) bool {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return refMisspelled(v, names)
}

func refMisspelled(v any, names *Names) bool {
	if names == nil {
		return false
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if refMisspelled(e, names) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			exact, variant := refLookup(names, k)
			if variant || refMisspelled(e, exact) {
				return true
			}
		}
	}
	return false
}

// refLookup returns the names read in the value of member k, and whether
// k is only a case variant of the names read.
func refLookup(names *Names, k string) (inner *Names, variant bool) {
	for _, n := range names.names {
		if n.name == k {
			return n.inner, false
		}
	}
	for _, n := range names.names {
		if strings.EqualFold(n.name, k) {
			return nil, true
		}
	}
	return nil, false
}

// FuzzCheckLoose: on any text the check accepts, CheckLoose says exactly
// whether json.Compact changes it, and refuses exactly what Check
// refuses.
func FuzzCheckLoose(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a": 1}`, `"a b"`, "[1,\n2]", `"\" "`, `{"a":"\\"}`, " {} ", "\t[]", `{"a":1}x`} {
		f.Add([]byte(s))
	}
	strict, err := NewStrict(MaxDepthCeiling, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		loose, err := strict.CheckLoose(text)
		if plain := strict.Check(text); (plain == nil) != (err == nil) {
			t.Fatalf("CheckLoose = %v, Check = %v", err, plain)
		}
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, text); err != nil {
			t.Fatalf("Compact refuses what the check accepts: %v", err)
		}
		if changed := !bytes.Equal(buf.Bytes(), text); loose != changed {
			t.Errorf("CheckLoose(%q) = %v, Compact changes it: %v", text, loose, changed)
		}
	})
}
