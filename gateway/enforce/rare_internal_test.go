package enforce

import (
	"bytes"
	"strings"
	"testing"
)

func TestNewRareID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		rare byte
		off  int
	}{
		{"reports/q1-financial", '-', 10},
		{"a", 'a', 0},
		{"the", 'h', 1},
		{"x/y/z", '/', 3},
		{"é", 0xa9, 1},
	} {
		if r := newRareID(tc.id); r.rare != tc.rare || r.off != tc.off {
			t.Errorf("newRareID(%q) skips to %q at %d, want %q at %d", tc.id, r.rare, r.off, tc.rare, tc.off)
		}
	}
}

func TestRareIndex(t *testing.T) {
	for _, tc := range []struct {
		name, text, id string
		from, want     int
	}{
		{"absent", "the quick brown fox", "fox/1", 0, -1},
		{"first", "a/b a/b", "a/b", 0, 0},
		{"after from", "a/b a/b", "a/b", 1, 4},
		{"rare byte before from", "xa/b", "a/b", 2, -1},
		{"cut at the end", "xxa/", "a/b", 0, -1},
		{"rare byte everywhere", strings.Repeat("/", 200) + "q/", "q/", 0, 200},
		{"rare byte everywhere, absent", strings.Repeat("/", 200), "q/", 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newRareID(tc.id).index([]byte(tc.text), tc.from); got != tc.want {
				t.Errorf("index = %d, want %d", got, tc.want)
			}
		})
	}
}

// FuzzRareIndex: the rare-byte search finds what bytes.Index finds, from
// any offset.
func FuzzRareIndex(f *testing.F) {
	f.Add("reports/q1", "see reports/q1 and reports/q2", uint(3))
	f.Add("//", strings.Repeat("/x", 100)+"//", uint(0))
	f.Add("ab", "aab", uint(1))
	f.Fuzz(func(t *testing.T, id, text string, from uint) {
		if id == "" {
			return
		}
		b := []byte(text)
		at := int(from % uint(len(b)+1))
		want := bytes.Index(b[at:], []byte(id))
		if want >= 0 {
			want += at
		}
		if got := newRareID(id).index(b, at); got != want {
			t.Fatalf("index(%q, %q, %d) = %d, bytes.Index gives %d", id, text, at, got, want)
		}
	})
}

// FuzzFewMatchesAutomaton: over the same ids, the few-id matcher and the
// automaton find the same occurrences through a cursor, so a catalog may
// use either.
func FuzzFewMatchesAutomaton(f *testing.F) {
	f.Add("a|ab|b", "abab b a")
	f.Add("notes/a|notes/ab|tes", "notes/ab notes/a")
	f.Add("x|xx", "xxxxx")
	f.Fuzz(func(t *testing.T, list, text string) {
		ids := fuzzIDs(list)
		sameMatches(t, &cursor{m: newFewMatcher(ids), b: []byte(text)}, &cursor{m: newMatcher(ids), b: []byte(text)})
	})
}
