package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// checkLayoutAgrees compares the layout Strict records of text with what
// the walks find on their own: the same literals (with their escapes and
// whether each is a name), the same end of every object and array, and
// the same members walked through it.
func checkLayoutAgrees(t *testing.T, text []byte) {
	t.Helper()
	s, err := NewStrict(MaxDepthCeiling, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lay Layout
	if _, err := s.CheckLayout(text, &lay); err != nil {
		if lay.Of(text) != nil {
			t.Fatalf("a refused text (%v) has a layout", err)
		}
		return
	}
	if lay.Of(text) == nil {
		if n := countEntries(text); n < len(text)/layoutDensity+8 {
			t.Fatalf("layout of %q (%d entries) incomplete below its bound", text, n)
		}
		return
	}
	if lay.Of(bytes.Clone(text)) != nil {
		t.Fatal("a layout applies to a copy of its text")
	}
	var want []Literal
	w := WalkStrings(text)
	for start, end, ok := w.Next(); ok; start, end, ok = w.Next() {
		_, escaped, _ := stringEnd(text, start)
		want = append(want, Literal{Start: start, End: end, Escaped: escaped, Name: nameAt(text, end)})
	}
	var got []Literal
	for i := range lay.NumLiterals() {
		got = append(got, lay.Literal(i))
	}
	if len(got) != len(want) || len(got) > 0 && !equalLiterals(got, want) {
		t.Fatalf("layout literals %v, walk finds %v", got, want)
	}
	for pos := 0; pos < len(text); pos++ {
		if text[pos] != '{' && text[pos] != '[' || insideLiteral(want, pos) {
			continue
		}
		end, ok := lay.containerEnd(pos)
		wantEnd, wantOK := containerEnd(text, pos)
		if ok != wantOK || end != wantEnd {
			t.Fatalf("container at %d ends at %d %v in the layout, %d %v walked", pos, end, ok, wantEnd, wantOK)
		}
	}
	if at, esc, obj := lay.FirstMember(text, "result"); true {
		wat, wesc, wobj := FirstMember(text, "result")
		if at != wat || esc != wesc || obj != wobj {
			t.Fatalf("FirstMember through the layout %d %v %v, walked %d %v %v", at, esc, obj, wat, wesc, wobj)
		}
		if at >= 0 {
			compareWalks(t, text, at, &lay)
		}
	}
}

// compareWalks compares the members of the object at text[at], and of
// each object among their values, walked with and without the layout.
func compareWalks(t *testing.T, text []byte, at int, lay *Layout) {
	t.Helper()
	a, aok := lay.WalkObjectAt(text, at)
	b, bok := WalkObjectAt(text, at)
	if aok != bok {
		t.Fatalf("WalkObjectAt(%d): %v through the layout, %v walked", at, aok, bok)
	}
	for {
		ma, oka := a.Next()
		mb, okb := b.Next()
		if oka != okb || !bytes.Equal(ma.Name, mb.Name) || !bytes.Equal(ma.Value, mb.Value) {
			t.Fatalf("member %q=%q %v through the layout, %q=%q %v walked", ma.Name, ma.Value, oka, mb.Name, mb.Value, okb)
		}
		if !oka {
			return
		}
		ia, iaok := a.WalkObject(ma)
		ib, ibok := WalkObject(mb.Value)
		if iaok != ibok {
			t.Fatalf("inner walk of %q: %v through the layout, %v walked", ma.Value, iaok, ibok)
		}
		for iaok {
			x, ok1 := ia.Next()
			y, ok2 := ib.Next()
			if ok1 != ok2 || !bytes.Equal(x.Value, y.Value) {
				t.Fatalf("inner member %q %v through the layout, %q %v walked", x.Value, ok1, y.Value, ok2)
			}
			iaok = ok1
		}
	}
}

// countEntries is the number of entries a layout of the accepted text
// needs: its literals and containers.
func countEntries(text []byte) int {
	n := 0
	w := WalkStrings(text)
	for _, _, ok := w.Next(); ok; _, _, ok = w.Next() {
		n++
	}
	var lits []Literal
	w = WalkStrings(text)
	for start, end, ok := w.Next(); ok; start, end, ok = w.Next() {
		lits = append(lits, Literal{Start: start, End: end})
	}
	for pos, b := range text {
		if (b == '{' || b == '[') && !insideLiteral(lits, pos) {
			n++
		}
	}
	return n
}

func equalLiterals(a, b []Literal) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// nameAt reports whether a colon follows offset end, past whitespace.
func nameAt(b []byte, end int) bool {
	rest := bytes.TrimLeft(b[end:], " \t\r\n")
	return len(rest) > 0 && rest[0] == ':'
}

func insideLiteral(lits []Literal, pos int) bool {
	for _, l := range lits {
		if int(l.Start) <= pos && pos < int(l.End) {
			return true
		}
	}
	return false
}

func TestLayout(t *testing.T) {
	tests := []struct{ name, text string }{
		{"answer", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","status":{"state":"completed"},"artifacts":[{"parts":[{"text":"a \"quoted\" {x}"}]}]}}`},
		{"spaces", " { \"a\" : [ 1 , { \"b\" : \"c\" } ] , \"result\" : { \"task\" : { \"id\" : \"x\" } } } "},
		{"escaped name", `{"re\u0073ult":{"id":"x"},"result":[]}`},
		{"empty containers", `{"a":{},"b":[],"result":{"c":[[]],"d":{}}}`},
		{"top-level array", `[{"id":1},"s",[2]]`},
		{"string only", `"just text"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkLayoutAgrees(t, []byte(tt.text)) })
	}
}

// TestLayoutBound: a text of tiny strings would make a layout larger than
// itself; past one entry per layoutDensity bytes it is incomplete, its
// storage dropped, and readers walk the text. A complete layout never
// holds more than the text's size, and Forget lets go of a large one.
func TestLayoutBound(t *testing.T) {
	s, _ := NewStrict(MaxDepthCeiling, nil)
	dense := []byte("[" + strings.Repeat(`"",`, 4000) + `""]`)
	var lay Layout
	if _, err := s.CheckLayout(dense, &lay); err != nil {
		t.Fatal(err)
	}
	if lay.Of(dense) != nil || lay.lits != nil || lay.opens != nil {
		t.Fatalf("a dense text's layout is complete, or keeps its storage: %d entries for %d bytes", len(lay.lits), len(dense))
	}
	sparse := []byte(`{"result":{"text":"` + strings.Repeat("x", 4000) + `"}}`)
	if _, err := s.CheckLayout(sparse, &lay); err != nil || lay.Of(sparse) == nil {
		t.Fatalf("a reused layout of a sparse text is not complete (%v)", err)
	}
	// Just dense enough: one literal per 8 bytes, every one recorded, in
	// storage no larger than the text.
	edge := []byte("[" + strings.Repeat(`"abcde",`, 20000) + `"abcde"]`)
	if _, err := s.CheckLayout(edge, &lay); err != nil || lay.Of(edge) == nil {
		t.Fatalf("a text of one literal per 8 bytes has no complete layout (%v)", err)
	}
	if size := 8*cap(lay.lits) + 4*cap(lay.opens) + 4*cap(lay.ends); size > len(edge)+256 { // the room's eight spare entries, the containers' first sixteen
		t.Fatalf("the layout holds %d bytes for a text of %d", size, len(edge))
	}
	lay.Forget(1 << 10)
	if lay.text != nil || lay.lits != nil {
		t.Fatal("Forget kept the text or a large layout's storage")
	}
}

// FuzzLayout: on any text Strict accepts, the layout it records agrees
// with the walks.
func FuzzLayout(f *testing.F) {
	for _, s := range []string{`{"result":{"id":"t","x":[1,{"y":"z"}]}}`, `["a\"b",{"c":{}}]`, `{"a":"{[\\"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		checkLayoutAgrees(t, []byte(s))
	})
}
