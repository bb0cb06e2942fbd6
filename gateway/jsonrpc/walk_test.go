package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func TestWalkObject(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // name, then value, of each member
		notObj  bool
		broken  bool
		escaped bool
	}{
		{name: "members in order", in: ` {"a" : 1, "b":"x}" ,"c":[1,{"d":"]"}], "e":{}} `,
			want: []string{"a", "1", "b", `"x}"`, "c", `[1,{"d":"]"}]`, "e", "{}"}},
		{name: "duplicates kept", in: `{"id":1,"id":2}`, want: []string{"id", "1", "id", "2"}},
		{name: "escaped name", in: `{"a\u0062":true}`, want: []string{`a\u0062`, "true"}, escaped: true},
		{name: "empty", in: `{}`},
		{name: "array", in: `[{"a":1}]`, notObj: true},
		{name: "blank", in: ``, notObj: true},
		{name: "unterminated string", in: `{"id":"abc}`, broken: true},
		{name: "unterminated object", in: `{"id":1,"result":{"a":1}`, want: []string{"id", "1", "result", `{"a":1}`}, broken: true},
		{name: "missing colon", in: `{"id" 1}`, broken: true},
		{name: "missing value", in: `{"id":}`, broken: true},
		{name: "trailing comma", in: `{"id":1,}`, want: []string{"id", "1"}, broken: true},
		{name: "trailing data", in: `{"id":1}x`, want: []string{"id", "1"}, broken: true},
		{name: "two objects", in: `{"id":1}{"id":2}`, want: []string{"id", "1"}, broken: true},
		{name: "junk after a value", in: `{"id":1"x"}`, want: []string{"id", "1"}, broken: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, ok := WalkObject([]byte(tt.in))
			if ok == tt.notObj {
				t.Fatalf("WalkObject ok = %v", ok)
			}
			var got []string
			escaped := false
			for m, ok := it.Next(); ok; m, ok = it.Next() {
				got = append(got, string(m.Name), string(m.Value))
				escaped = escaped || m.Escaped
			}
			if !equalStrings(got, tt.want) || escaped != tt.escaped {
				t.Errorf("members %q (escaped %v), want %q (%v)", got, escaped, tt.want, tt.escaped)
			}
			if err := it.Err(); (err != nil) != tt.broken || (err != nil && !errors.Is(err, ErrParse)) {
				t.Errorf("Err() = %v, want broken %v", err, tt.broken)
			}
		})
	}
}

func TestWalkArrayAndStrings(t *testing.T) {
	in := []byte(` [ "a\"b" ,{"k":["]"]}, 3 ,null] `)
	it, ok := WalkArray(in)
	var elems []string
	for e, ok := it.Next(); ok; e, ok = it.Next() {
		elems = append(elems, string(e))
	}
	if want := []string{`"a\"b"`, `{"k":["]"]}`, "3", "null"}; !ok || !equalStrings(elems, want) || it.Err() != nil {
		t.Errorf("elements %q, %v, %v; want %q", elems, ok, it.Err(), want)
	}
	s := WalkStrings(in)
	var lits []string
	for start, end, ok := s.Next(); ok; start, end, ok = s.Next() {
		lits = append(lits, string(in[start:end]))
	}
	if want := []string{`"a\"b"`, `"k"`, `"]"`}; !equalStrings(lits, want) {
		t.Errorf("literals %q, want %q", lits, want)
	}
	if _, ok := WalkArray([]byte(`{}`)); ok {
		t.Error("WalkArray walks an object")
	}
}

func TestWalkDoesNotAllocate(t *testing.T) {
	text := []byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","history":[{"a":"\"}"}]}}`)
	n := testing.AllocsPerRun(100, func() {
		it, _ := WalkObject(text)
		for m, ok := it.Next(); ok; m, ok = it.Next() {
			a, _ := WalkArray(m.Value)
			for _, ok := a.Next(); ok; _, ok = a.Next() {
			}
		}
		s := WalkStrings(text)
		for _, _, ok := s.Next(); ok; _, _, ok = s.Next() {
		}
	})
	if n != 0 {
		t.Fatalf("a walk allocates %.0f times, want 0", n)
	}
}

func TestUnquoteAllocatesOnlyTheString(t *testing.T) {
	lit := []byte(`"t1-plain"`)
	if n := testing.AllocsPerRun(100, func() { _, _ = Unquote(lit) }); n != 1 {
		t.Fatalf("Unquote of a plain literal allocates %.0f times, want 1 (the string)", n)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzWalk checks the walks against encoding/json: on any text they never
// panic; on valid JSON they walk an object or an array to its end without
// an error; on text Strict accepts (no duplicate names) they find exactly
// the members and elements encoding/json decodes, and the string literals
// its tokenizer reads, in order.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1"}}`, `[1,"]",{"a":[{}]},null]`,
		`{"a\u0062":"\"}","c":-1.5e3}`, ` { } `, `{"id":1,"id":2}`, `"x"`, `{"a":1,}`, `{"a" 1}`, `[`, `{"a":"`,
	} {
		f.Add([]byte(s))
	}
	strict, err := NewStrict(MaxDepthCeiling, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		members, elems := walkAll(text)
		if !json.Valid(text) {
			return
		}
		if o, ok := WalkObject(text); ok {
			for _, ok := o.Next(); ok; _, ok = o.Next() {
			}
			if o.Err() != nil {
				t.Fatalf("valid object %q: %v", text, o.Err())
			}
		}
		if strict.Check(text) != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(text, &m) == nil && m != nil {
			sameMembers(t, text, members, m)
		}
		var a []json.RawMessage
		if json.Unmarshal(text, &a) == nil && a != nil && !equalRaw(elems, a) {
			t.Fatalf("%q: elements %q, encoding/json %q", text, elems, a)
		}
		sameStrings(t, text)
	})
}

// walkAll walks text as an object and as an array.
func walkAll(text []byte) (members []Member, elems []json.RawMessage) {
	o, _ := WalkObject(text)
	for m, ok := o.Next(); ok; m, ok = o.Next() {
		members = append(members, m)
	}
	a, _ := WalkArray(text)
	for e, ok := a.Next(); ok; e, ok = a.Next() {
		elems = append(elems, e)
	}
	return members, elems
}

func sameMembers(t *testing.T, text []byte, members []Member, want map[string]json.RawMessage) {
	t.Helper()
	if len(members) != len(want) {
		t.Fatalf("%q: %d members, encoding/json %d", text, len(members), len(want))
	}
	for _, m := range members {
		name, ok := Unquote(append(append([]byte{'"'}, m.Name...), '"'))
		if !ok || !bytes.Equal(m.Value, want[name]) || m.Escaped != bytes.Contains(m.Name, []byte{'\\'}) {
			t.Fatalf("%q: member %q = %q, encoding/json %q", text, m.Name, m.Value, want[name])
		}
	}
}

func sameStrings(t *testing.T, text []byte) {
	t.Helper()
	var want []string
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if s, ok := tok.(string); ok {
			want = append(want, s)
		}
	}
	var got []string
	s := WalkStrings(text)
	for start, end, ok := s.Next(); ok; start, end, ok = s.Next() {
		str, ok := Unquote(text[start:end])
		if !ok {
			t.Fatalf("%q: literal %q does not decode", text, text[start:end])
		}
		got = append(got, str)
	}
	if !equalStrings(got, want) {
		t.Fatalf("%q: literals %q, encoding/json %q", text, got, want)
	}
}

func equalRaw(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// FuzzFirstMember checks FirstMember and WalkObjectAt against the full
// walk: on any text they never panic; on text Strict accepts, FirstMember
// stops at the value of the first member named as asked (or at the first
// escaped name before it), and a walk of that value from inside the text
// finds exactly the members a walk of the value alone finds.
func FuzzFirstMember(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1"}}`, `{"id":1,"result":"x"}`,
		`{"a\u0062":1,"result":{}}`, `{"result" : { "a" : [1] } }`, `{}`, `[{"result":1}]`, `{"result":{"a":1}`,
	} {
		f.Add([]byte(s), "result")
	}
	strict, err := NewStrict(MaxDepthCeiling, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte, name string) {
		at, escaped, isObject := FirstMember(text, name)
		if w, ok := WalkObjectAt(text, at); ok {
			for _, ok := w.Next(); ok; _, ok = w.Next() {
			}
		}
		if strict.Check(text) != nil {
			return
		}
		members, _ := walkAll(text)
		o, wantObject := WalkObject(text)
		wantAt, wantEscaped := -1, false
		for m, ok := o.Next(); ok && wantAt < 0 && !wantEscaped; m, ok = o.Next() {
			if m.Escaped {
				wantEscaped = true
			} else if string(m.Name) == name {
				wantAt = cap(text) - cap(m.Value) // where m.Value starts in text
			}
		}
		if isObject != wantObject || at != wantAt || escaped != wantEscaped {
			t.Fatalf("FirstMember(%q, %q) = %d, %v, %v; walking finds %d, %v, %v (%d members)",
				text, name, at, escaped, isObject, wantAt, wantEscaped, wantObject, len(members))
		}
		if at < 0 {
			return
		}
		value := text[at : at+len(valueOf(t, text[at:]))]
		var inner, whole []Member
		w, ok := WalkObjectAt(text, at)
		for m, ok := w.Next(); ok; m, ok = w.Next() {
			inner = append(inner, m)
		}
		if v, isObj := WalkObject(value); isObj != ok {
			t.Fatalf("WalkObjectAt(%q, %d) is an object: %v; its value alone: %v", text, at, ok, isObj)
		} else {
			for m, ok := v.Next(); ok; m, ok = v.Next() {
				whole = append(whole, m)
			}
		}
		if len(inner) != len(whole) {
			t.Fatalf("WalkObjectAt(%q, %d) finds %d members, the value alone %d", text, at, len(inner), len(whole))
		}
		for i := range inner {
			if !bytes.Equal(inner[i].Name, whole[i].Name) || !bytes.Equal(inner[i].Value, whole[i].Value) {
				t.Fatalf("WalkObjectAt(%q, %d) member %d: %q:%q, the value alone %q:%q", text, at, i, inner[i].Name, inner[i].Value, whole[i].Name, whole[i].Value)
			}
		}
	})
}

// valueOf is the JSON value at the start of text, as json.Decoder reads
// it.
func valueOf(t *testing.T, text []byte) json.RawMessage {
	t.Helper()
	var v json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(text)).Decode(&v); err != nil {
		t.Fatalf("no value at the start of %q: %v", text, err)
	}
	return v
}
