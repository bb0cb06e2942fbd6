package answer

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestMapIDsOnePass: the answer is searched once from left to right, and
// each literal an id starts in is mapped, whatever came before it.
func TestMapIDsOnePass(t *testing.T) {
	c := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/q1", "reports/q2", "reports/x", `x"`}, Placeholder: "[resource]"})
	refuse := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/x"}, Refuse: true})
	tests := []struct {
		name, in, want string
		c              *enforce.Catalog
		wantErr        error
	}{
		{"none", `{"a":"b","c":[1,"d"]}`, `{"a":"b","c":[1,"d"]}`, c, nil},
		{"second and fourth literals", `["a","reports/q1","b","x reports/x y"]`, `["a","rh_1","b","x [resource] y"]`, c, nil},
		{"key and value", `{"reports/q2":"reports/q1"}`, `{"rh_2":"rh_1"}`, c, nil},
		{"an id across a closing quote is no id", `["reports/x","x","reports/q2"]`, `["[resource]","x","rh_2"]`, c, nil},
		{"escaped after plain", `["reports/q1","reports\/q2"]`, `["rh_1","rh_2"]`, c, nil},
		{"escaped only", `["reports\/q2"]`, `["rh_2"]`, c, nil},
		{"refused late", `["a","b","reports/q1 reports/x"]`, "", refuse, ErrUnmappedID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MapIDs(context.Background(), json.RawMessage(tt.in), benchScope(), tt.c)
			if !errors.Is(err, tt.wantErr) || err == nil && string(got) != tt.want {
				t.Errorf("MapIDs(%s) = %s, %v; want %s, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// slowMapAnswer is mapAnswer without its fast paths: every literal
// decoded, mapped by Replace and encoded again when it changed.
func slowMapAnswer(raw []byte, ids *enforce.IDMap) ([]byte, error) {
	var out []byte
	last := 0
	lits := jsonrpc.WalkStrings(raw)
	for start, end, ok := lits.Next(); ok; start, end, ok = lits.Next() {
		s, changed, refused := mapLiteral(raw[start:end], false, ids)
		if refused {
			return nil, ErrUnmappedID
		}
		if changed {
			out = jsonrpc.AppendString(append(out, raw[last:start]...), s)
			last = end
		}
	}
	return append(out, raw[last:]...), nil
}

// FuzzMapAnswer: on any valid JSON, mapAnswer (which skips literals no id
// starts in and maps plain literals in place) writes exactly what
// decoding, replacing and encoding every literal writes.
func FuzzMapAnswer(f *testing.F) {
	for _, s := range []string{`["a","reports/q1","b","x reports/x y"]`, `{"reports/q2":"reports/q1 <b>"}`,
		`["reports\/q2 reports/q1", "é reports/q1", "reports/x\""]`, `"reports/q1reports/q2"`,
		`["a reports/x","reports/x", "ax", "x"]`} {
		f.Add(s, false)
	}
	// The few ids are searched one by one; with the padding, the catalog
	// is over fewCatalog and takes the automaton and its prefilter.
	few := []string{"reports/q1", "reports/q2", "reports/x", `x"`, `reports/x",`, "a<b"}
	many := append([]string{"pad/0", "pad/1", "pad/2", "pad/3", "pad/4", "pad/5"}, few...)
	f.Fuzz(func(t *testing.T, s string, refuse bool) {
		if !json.Valid([]byte(s)) {
			return
		}
		// The literals are walked, or read from the layout the answer
		// check records when it accepts the text.
		b := []byte(s)
		layouts := []*jsonrpc.Layout{nil}
		if lay := new(jsonrpc.Layout); checkLayout(t, b, lay) {
			layouts = append(layouts, lay)
		}
		for _, catalog := range [][]string{few, many} {
			c := enforce.NewCatalog(enforce.Known{IDs: catalog, Placeholder: "[resource]", Refuse: refuse})
			ids := benchScope().IDMap(c)
			want, wantErr := slowMapAnswer(b, ids)
			for _, lay := range layouts {
				text := ids.Text(b)
				got, names, err := mapAnswer(b, ids, text, text.Index(0), nil, lay)
				if !errors.Is(err, wantErr) || err == nil && string(got) != string(want) {
					t.Fatalf("mapAnswer(%s, layout %v) = %s, %v; decoding every literal gives %s, %v", s, lay != nil, got, err, want, wantErr)
				}
				if err == nil && names != slowNamesChanged(t, s, string(got)) {
					t.Fatalf("mapAnswer(%s, layout %v) = %s says names changed: %v", s, lay != nil, got, names)
				}
			}
		}
	})
}

// checkLayout records b's layout into lay as the answer check does, and
// reports whether the check accepted b.
func checkLayout(t *testing.T, b []byte, lay *jsonrpc.Layout) bool {
	t.Helper()
	strict, err := newStrict()
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.CheckLayout(b, lay)
	return err == nil
}

// FuzzVouchedMapping: what the id mapping vouches for (it changed no
// member name), and the pipeline therefore does not check again, passes
// the answer check whenever what it was given did, with whitespace
// outside strings exactly where it was.
func FuzzVouchedMapping(f *testing.F) {
	for _, s := range []string{`{"a":"reports/q1","b":["x reports/q2 y"]}`, `{"reports/q1":1,"reports/q2":2}`,
		`{"a" : "reports\/q1", "b":"é reports/x"}`, `["a<b", "x\""]`, `{"id":1,"result":{"Id":"reports/q1"}}`} {
		f.Add(s, false)
	}
	strict, err := newStrict()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, refuse bool) {
		loose, err := checkAnswer([]byte(s), strict)
		if err != nil {
			return
		}
		c := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/q1", "reports/q2", "reports/x", `x"`, "a<b", "é"}, Placeholder: "[resource]", Refuse: refuse})
		ids := benchScope().IDMap(c)
		text := ids.Text([]byte(s))
		got, names, err := mapAnswer([]byte(s), ids, text, text.Index(0), nil, nil)
		if err != nil || names {
			return
		}
		gotLoose, err := checkAnswer(got, strict)
		if err != nil || gotLoose != loose {
			t.Fatalf("mapAnswer(%s) = %s, vouched for, but the check says loose %v (was %v), %v", s, got, gotLoose, loose, err)
		}
	})
}

// slowNamesChanged reports whether the member names of the JSON texts a
// and b, decoded in order at every depth, differ.
func slowNamesChanged(t *testing.T, a, b string) bool {
	t.Helper()
	na, nb := memberNames(t, a), memberNames(t, b)
	return !slices.Equal(na, nb)
}

// memberNames lists every member name of the JSON text s, in order.
func memberNames(t *testing.T, s string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	type frame struct{ object, wantName bool }
	var names []string
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			if stack[n-1].wantName {
				names = append(names, tok.(string))
				stack[n-1].wantName = false
				continue
			}
			stack[n-1].wantName = true
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{object: d == '{', wantName: d == '{'})
		}
	}
}
