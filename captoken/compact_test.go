package captoken

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCompactRoundTrip checks that the cache's compact form gives back
// claims equal to those it was built from, whether their strings are
// found in src (a packed token's bytes) or not (escaped by JSON, or no
// src at all), and that the lists handed out do not share growth.
func TestCompactRoundTrip(t *testing.T) {
	child := rootClaims(t0)
	child.CapabilityID, child.ParentCapabilityID = "cap_BBBBBBBBBBBBBBBBBBBBBB", "cap_AAAAAAAAAAAAAAAAAAAAAA"
	child.Ancestors, child.Depth, child.Handles = []string{"rv_AAAAAAAAAAAAAAAAAAAAAA"}, 1, nil
	escaped := rootClaims(t0)
	escaped.Principal, escaped.Purpose = "user:a&b", "<script>"
	tests := []struct {
		name   string
		claims Claims
		src    func(c Claims) string
		shares bool
	}{
		{name: "strings in src", claims: rootClaims(t0), src: payloadOf(t), shares: true},
		{name: "no src", claims: rootClaims(t0), src: func(Claims) string { return "" }},
		{name: "escaped in src", claims: escaped, src: payloadOf(t)},
		{name: "child without handles", claims: child, src: payloadOf(t), shares: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src(tc.claims)
			cc, ok := compact(&tc.claims, src)
			if !ok {
				t.Fatal("compact refused")
			}
			if got := cc.claims(); !reflect.DeepEqual(got, &tc.claims) {
				t.Fatalf("claims() = %+v, want %+v", got, tc.claims)
			}
			if shares := cc.src == src; shares != tc.shares {
				t.Errorf("shares src = %v, want %v", shares, tc.shares)
			}
			got := cc.claims()
			got.Operations = append(got.Operations, "delete")
			if again := cc.claims(); len(got.Handles) > 0 && got.Handles[0] != again.Handles[0] {
				t.Errorf("appending to the operations overwrote a handle")
			}
		})
	}
}

// payloadOf returns the canonical payload of claims, as a packed token
// holds it.
func payloadOf(t *testing.T) func(c Claims) string {
	return func(c Claims) string {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

func TestCompactRefusesWhatItCannotSpan(t *testing.T) {
	deep := rootClaims(t0)
	deep.MaxDepth = 1 << 40
	long := rootClaims(t0)
	long.Purpose = strings.Repeat("p", 1<<16)
	for name, c := range map[string]Claims{"max depth past 2^31": deep, "string past 64 KB": long} {
		if _, ok := compact(&c, ""); ok {
			t.Errorf("%s: compact accepted claims it cannot give back", name)
		}
	}
}
