package proxy

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// strippedByNormalizing is the rule Stripped implements, written the
// direct way: normalize, then compare.
func strippedByNormalizing(name string) bool {
	n := normalizeName(name)
	return strings.HasPrefix(n, vouchedPrefix) || slices.Contains(strippedNames[:], n)
}

// FuzzStrippedFolded holds Stripped, which compares without building the
// normalized name, equal to normalizing first, for every name.
func FuzzStrippedFolded(f *testing.F) {
	for _, s := range []string{"Authorization", "AUTHORIZATION", "a2a_capability_x", "A2A-Capability",
		"X_Forwarded_For", "Cookie2", "cookie", "\u212Aookie", "A2A-Capabilit", "x-forwarded-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := Stripped(name), strippedByNormalizing(name); got != want {
			t.Fatalf("Stripped(%q) = %v, normalizing says %v", name, got, want)
		}
	})
}

// TestCanonicalNames: the header names SetContextHeaders writes directly
// are the canonical forms of the exported names, the keys Header.Get and
// the transport use.
func TestCanonicalNames(t *testing.T) {
	for name, canonical := range map[string]string{
		HeaderCapabilityID: canonicalID, HeaderCapabilityPrincipal: canonicalPrincipal,
		HeaderCapabilityHolder: canonicalHolder, HeaderCapabilityOperations: canonicalOperations,
	} {
		if got := http.CanonicalHeaderKey(name); got != canonical {
			t.Errorf("canonical form of %s is %s, written as %s", name, got, canonical)
		}
	}
}

// TestContextHeadersIndependent: the vouched headers share one array of
// values; adding a value to one never changes another.
func TestContextHeadersIndependent(t *testing.T) {
	h := http.Header{}
	SetContextHeaders(h, Context{CapabilityID: "cap_1", Principal: "user:a", Holder: "agent:b", Operations: []string{"x", "y"}})
	h.Add(HeaderCapabilityID, "cap_2")
	h.Add(HeaderCapabilityPrincipal, "user:z")
	want := map[string][]string{
		canonicalID: {"cap_1", "cap_2"}, canonicalPrincipal: {"user:a", "user:z"},
		canonicalHolder: {"agent:b"}, canonicalOperations: {"x,y"},
	}
	for k, v := range want {
		if !slices.Equal(h[k], v) {
			t.Errorf("%s = %q, want %q", k, h[k], v)
		}
	}
}
