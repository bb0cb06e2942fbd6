package enforce

import (
	"slices"
	"strings"
	"testing"
)

// fuzzIDs reads distinct non-empty ids from a list split on '|'.
func fuzzIDs(list string) []string {
	var ids []string
	for _, id := range strings.Split(list, "|") {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// sameMatches walks two cursors over one text as the id map does and
// fails at the first occurrence where they differ: y is the reference.
func sameMatches(t *testing.T, x, y *cursor) {
	t.Helper()
	for from := 0; ; {
		a, oka := x.next(from)
		b, okb := y.next(from)
		if oka != okb || a != b {
			t.Fatalf("from %d: %v %v, the reference %v %v", from, a, oka, b, okb)
		}
		if !oka {
			return
		}
		from = max(a.end, a.start+1)
	}
}

func TestPrefilterMatchesAutomaton(t *testing.T) {
	for _, tc := range []struct{ name, ids, text string }{
		{"no id", "reports/q1|reports/extra-00001", "the quarterly report was filed"},
		{"longest at one place", "ab/c|ab/cd|b/c", "xab/cd ab/c b/c"},
		{"one rare byte", "a/b|c/d", "a/b c/d a/ba/b"},
		{"dense candidates give way", "ab|ac", strings.Repeat("a", 300) + "b ac aa"},
		{"id at the end", "xyz|yz", "....xyz"},
		{"many lengths", "a|bb|ccc|dddd|eeeee|ffffff|ggggggg|hhhhhhhh|iiiiiiiii|jjjjjjjjjj|kkkkkkkkkkk|llllllllllll|mmmmmmmmmmmmm|nnnnnnnnnnnnnn|ooooooooooooooo|pppppppppppppppp|qqqqqqqqqqqqqqqqq", "a bb qqqqqqqqqqqqqqqqq"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := fuzzIDs(tc.ids)
			m := newMatcher(ids)
			sameMatches(t, &cursor{m: m, b: []byte(tc.text)}, &cursor{m: &matcher{ac: m.ac}, b: []byte(tc.text)})
		})
	}
}

func TestNewPrefilter(t *testing.T) {
	p := newPrefilter([]string{"reports/q1", "reports/extra-00001"})
	if p == nil || p.one != '/' || p.off != 7 || !slices.Equal(p.lens, []int{19, 10}) {
		t.Fatalf("newPrefilter = %+v, want the one byte '/' at 7, lengths 19, 10", p)
	}
	var many []string
	for n := range maxPrefilterLens + 1 {
		many = append(many, strings.Repeat("x", n+1))
	}
	if p := newPrefilter(many); p != nil {
		t.Fatalf("newPrefilter over %d lengths = %+v, want nil", len(many), p)
	}
}

// FuzzPrefilterMatchesAutomaton: the matcher with its prefilter finds
// the same occurrences, in the same order, as its automaton alone.
func FuzzPrefilterMatchesAutomaton(f *testing.F) {
	f.Add("a|ab|b", "abab b a")
	f.Add("notes/a|notes/ab|tes", "notes/ab notes/a")
	f.Add("x|xx", "xxxxx")
	f.Add("aa|ab", strings.Repeat("a", 100)+"ab")
	f.Add("r/1|r/22|q/333", "r/1 r/22r/1q/333 / //")
	f.Fuzz(func(t *testing.T, list, text string) {
		ids := fuzzIDs(list)
		if len(ids) == 0 {
			return
		}
		m := newMatcher(ids)
		sameMatches(t, &cursor{m: m, b: []byte(text)}, &cursor{m: &matcher{ac: m.ac}, b: []byte(text)})
	})
}
