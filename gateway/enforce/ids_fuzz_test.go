package enforce_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
)

// replacerMap is the id map as a strings.Replacer over every pair,
// longest first: the rule the matcher-based IDMap must keep, kept here as
// its reference. A refusal is told by the count of NULs growing.
func replacerMap(s *enforce.Scope, k enforce.Known, str string) (string, bool) {
	type pair struct {
		old, new string
		refuse   bool
	}
	var pairs []pair
	mapped := map[string]bool{}
	for _, r := range s.Resources {
		pairs, mapped[r.ID] = append(pairs, pair{old: r.ID, new: r.Handle}), true
	}
	for _, id := range k.IDs {
		if !mapped[id] && id != "" {
			pairs = append(pairs, pair{old: id, new: k.Placeholder, refuse: k.Refuse})
		}
	}
	slices.SortStableFunc(pairs, func(x, y pair) int { return cmp.Compare(len(y.old), len(x.old)) })
	var args []string
	for _, p := range pairs {
		switch {
		case !strings.Contains(str, p.old):
		case p.refuse:
			args = append(args, p.old, "\x00")
		default:
			args = append(args, p.old, p.new)
		}
	}
	if len(args) == 0 {
		return str, false
	}
	out := strings.NewReplacer(args...).Replace(str)
	if strings.Count(out, "\x00") > strings.Count(str, "\x00") {
		return "", true
	}
	return out, false
}

// fuzzWorld reads a capability and a catalog from fuzz input: ids split
// on '|', none empty and none with a NUL (the reference tells a refusal
// by counting NULs), the capability's ids distinct.
func fuzzWorld(held, catalog string, refuse bool) (*enforce.Scope, enforce.Known) {
	s := &enforce.Scope{Claims: &captoken.Claims{}}
	for i, id := range strings.Split(held, "|") {
		if id == "" || strings.Contains(id, "\x00") || slices.ContainsFunc(s.Resources, func(r enforce.Resource) bool { return r.ID == id }) {
			continue
		}
		h := fmt.Sprintf("rh_%d", i)
		s.Resources = append(s.Resources, enforce.Resource{Handle: h, ID: id})
		s.Claims.Handles = append(s.Claims.Handles, h)
	}
	k := enforce.Known{Placeholder: "[resource]", Refuse: refuse}
	for _, id := range strings.Split(catalog, "|") {
		if !strings.Contains(id, "\x00") {
			k.IDs = append(k.IDs, id)
		}
	}
	return s, k
}

// FuzzIDMapDifferential: on any capability, catalog and text, the
// matcher-based map replaces and refuses exactly as the replacer over
// every pair did.
func FuzzIDMapDifferential(f *testing.F) {
	f.Add("a|ab", "b|abc|bc", false, "abcabx ab b bc")
	f.Add("notes/a", "notes/a|notes/ab|tes", true, "notes/ab notes/a")
	f.Add("x", "xx|xxx", false, "xxxxxxx")
	f.Add("ab|cdefg", "bcd|b", false, "abcdefg xbcd")
	f.Add("q", "", true, "\x00q\xff")
	// One held id named often, another never and another late: each is
	// searched once per occurrence passed, not once per other match.
	f.Add("ab|zz|qq", "", false, "ab ab ab ab ab ab ab ab qq ab")
	f.Add("ab|abc|zz", "x", true, "abc ab abcab x zz")
	f.Fuzz(func(t *testing.T, heldIDs, catalog string, refuse bool, in string) {
		s, k := fuzzWorld(heldIDs, catalog, refuse)
		var held []string
		for _, r := range s.Resources {
			held = append(held, r.ID)
		}
		m := s.IDMap(enforce.NewCatalog(k))
		got, gotRefused := m.Replace(in)
		want, wantRefused := replacerMap(s, k, in)
		if got != want || gotRefused != wantRefused {
			t.Fatalf("Replace(%q) = %q, %v; the replacer gives %q, %v", in, got, gotRefused, want, wantRefused)
		}
		appended, changed, appRefused, ok := m.AppendReplace([]byte("<"), []byte(in), nil)
		if !changed && !appRefused {
			appended = append(appended, in...)
		}
		if !ok || appRefused != wantRefused || !wantRefused && string(appended) != "<"+want {
			t.Fatalf("AppendReplace(%q) = %q, %v, %v; Replace gives %q, %v", in, appended, appRefused, ok, want, wantRefused)
		}
		named := slices.ContainsFunc(append(slices.Clone(k.IDs), held...), func(id string) bool {
			return id != "" && strings.Contains(in, id)
		})
		if at := m.Index([]byte(in)); (at >= 0) != named {
			t.Fatalf("Index(%q) = %d, yet an id occurs: %v", in, at, named)
		}
	})
}
