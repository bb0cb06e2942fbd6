package captoken

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMintValidation(t *testing.T) {
	ks := newTestKeySet(t, 1)
	tests := []struct {
		name    string
		edit    func(c *Claims, res map[string]string)
		wantErr error
	}{
		{name: "valid", edit: func(c *Claims, res map[string]string) {}},
		{name: "no handles, no map", edit: func(c *Claims, res map[string]string) {
			c.Handles = nil
			clear(res)
		}},
		{name: "missing issuer", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Issuer = "" }},
		{name: "missing principal", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Principal = "" }},
		{name: "missing holder", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Holder = "" }},
		{name: "missing audience", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Audience = "" }},
		{name: "missing grant", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Grant = "" }},
		{name: "no operations", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Operations = nil }},
		{name: "missing exp", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.Expiry = 0 }},
		{name: "missing iat", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.IssuedAt = 0 }},
		{name: "missing cid", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.CapabilityID = "" }},
		{name: "missing rid", wantErr: ErrMissingClaim, edit: func(c *Claims, _ map[string]string) { c.RevocationID = "" }},
		{name: "exp equal to iat", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.Expiry = c.IssuedAt }},
		{name: "exp before iat", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.Expiry = c.IssuedAt - 1 }},
		{name: "nbf at exp", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.NotBefore = c.Expiry }},
		{name: "depth above max", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.MaxDepth = 0; c.Depth = 1 }},
		{name: "negative depth", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.Depth = -1 }},
		{name: "depth without ancestors", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) {
			c.Depth, c.ParentCapabilityID = 1, "cap_parent"
		}},
		{name: "ancestors without parent", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) {
			c.Depth, c.Ancestors = 1, []string{"rv_parent"}
		}},
		{name: "cid without prefix", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.CapabilityID = "7f3a9b" }},
		{name: "rid without prefix", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.RevocationID = "abc123" }},
		{name: "cid with odd characters", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.CapabilityID = "cap_a/../b" }},
		{name: "cid too long", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) {
			c.CapabilityID = "cap_" + strings.Repeat("a", maxIDLength)
		}},
		{name: "own rid among ancestors", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) {
			c.Depth, c.ParentCapabilityID, c.Ancestors = 1, "cap_parent", []string{c.RevocationID}
		}},
		{name: "duplicate operation", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) {
			c.Operations = []string{"retrieve", "retrieve"}
		}},
		{name: "empty operation", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.Operations = []string{""} }},
		{name: "invalid UTF-8 holder", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.Holder = "agent:\xff" }},
		{name: "handle missing from map", wantErr: ErrInvalidClaims, edit: func(_ *Claims, res map[string]string) { delete(res, "rh_002") }},
		{name: "map entry without handle", wantErr: ErrInvalidClaims, edit: func(_ *Claims, res map[string]string) { res["rh_003"] = "hr/salaries-2025" }},
		{name: "empty resource id", wantErr: ErrInvalidClaims, edit: func(_ *Claims, res map[string]string) { res["rh_001"] = "" }},
		{name: "duplicate handle", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) {
			c.Handles = []string{"rh_001", "rh_001"}
		}},
		{name: "handle without prefix", wantErr: ErrInvalidClaims, edit: func(c *Claims, res map[string]string) {
			c.Handles = []string{"q1-financial"}
			clear(res)
			res["q1-financial"] = "reports/q1-financial"
		}},
		{name: "caller-supplied sealed map", wantErr: ErrInvalidClaims, edit: func(c *Claims, _ map[string]string) { c.SealedResources = "x.y.z.w.v" }},
		{name: "too large", wantErr: ErrTooLarge, edit: func(c *Claims, _ map[string]string) { c.Purpose = strings.Repeat("p", MaxTokenSize) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, res := rootClaims(t0), rootResources()
			tc.edit(&c, res)
			_, err := Mint(ks, c, res)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Mint() error = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestMintDoesNotLeakResourceIDs(t *testing.T) {
	ks := newTestKeySet(t, 1)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	for _, id := range rootResources() {
		if strings.Contains(tok, id) {
			t.Fatalf("token contains resource id %q in clear", id)
		}
	}
	c, h, err := UnsafeClaimsWithoutVerification(tok)
	if err != nil {
		t.Fatal(err)
	}
	// Look for whole resource ids: the sealed map is random base64
	// ciphertext, which contains any short string (say "q1") by chance.
	for _, id := range rootResources() {
		if strings.Contains(c.SealedResources, id) {
			t.Fatalf("sealed map %q contains resource id %q in clear", c.SealedResources, id)
		}
	}
	if h.Type != TokenType || h.KeyID != ks.ActiveKeyID() || h.Algorithm != "EdDSA" {
		t.Fatalf("unexpected header %+v", h)
	}
}

func TestClaimsWireFormat(t *testing.T) {
	c := rootClaims(t0)
	c.ParentCapabilityID, c.Depth, c.Ancestors = "cap_PARENTPARENTPARENTPA", 1, []string{"rv_ROOTROOTROOTROOTROOTR"}
	c.NotBefore = NewNumericDate(t0)
	c.SealedResources = "eyJhbGciOiJkaXIifQ..iv.ciphertext.tag"
	got, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "claims.golden", append(got, '\n'))
	compact := mustJSON(t, c)
	back, err := decodeClaims(compact)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkCanonical(back, compact); err != nil {
		t.Fatal(err)
	}
	if back.Expiry != c.Expiry || back.Ancestors[0] != c.Ancestors[0] || back.SealedResources != c.SealedResources {
		t.Errorf("round trip lost data: %+v", back)
	}
}

func TestClaimsHelpers(t *testing.T) {
	c := rootClaims(t0)
	c.Ancestors = []string{"rv_root", "rv_mid"}
	if got := c.RevocationIDs(); strings.Join(got, ",") != c.RevocationID+",rv_root,rv_mid" {
		t.Errorf("RevocationIDs() = %v", got)
	}
	if !c.HasOperation("search") || c.HasOperation("delete") || c.HasOperation("*") {
		t.Error("HasOperation")
	}
	c.Operations = []string{"*"}
	if c.HasOperation("delete") {
		t.Error(`"*" must not act as a wildcard`)
	}
	if !c.HasHandle("rh_001") || c.HasHandle("rh_999") {
		t.Error("HasHandle")
	}
	cl := c.Clone()
	cl.Ancestors[0], cl.Operations[0] = "rv_x", "x"
	if c.Ancestors[0] != "rv_root" || c.Operations[0] != "*" {
		t.Error("Clone shares slices")
	}
}

func TestNumericDateJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    NumericDate
		wantErr bool
	}{
		{in: "1736424000", want: 1736424000},
		{in: "0", want: 0},
		{in: "253402300799", want: maxNumericDate},
		{in: "253402300800", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "1.5", wantErr: true},
		{in: "1e9", wantErr: true},
		{in: "01", wantErr: true},
		{in: `"1"`, wantErr: true},
		{in: "null", wantErr: true},
		{in: "99999999999999999999", wantErr: true},
	}
	for _, tc := range tests {
		var n NumericDate
		err := json.Unmarshal([]byte(tc.in), &n)
		if (err != nil) != tc.wantErr || (err == nil && n != tc.want) {
			t.Errorf("%s: got %d, %v", tc.in, n, err)
		}
	}
	if NewNumericDate(time.Time{}) != 0 || !NumericDate(0).Time().IsZero() {
		t.Error("zero time does not round trip to 0")
	}
}

func TestUnseal(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 0)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	c, err := v.Verify(context.Background(), tok, Expected{})
	if err != nil {
		t.Fatal(err)
	}
	other := rootClaims(t0)
	other.CapabilityID = "cap_OTHEROTHEROTHEROTHERO"
	otherTok := mustMint(t, ks, other, rootResources())
	otherClaims, _, _ := UnsafeClaimsWithoutVerification(otherTok)
	small := rootClaims(t0)
	small.Handles = []string{"rh_001"}
	smallTok := mustMint(t, ks, small, map[string]string{"rh_001": "reports/q1-financial"})
	smallClaims, _, _ := UnsafeClaimsWithoutVerification(smallTok)
	foreign := mustMint(t, newTestKeySet(t, 2), rootClaims(t0), rootResources())
	foreignClaims, _, _ := UnsafeClaimsWithoutVerification(foreign)

	tests := []struct {
		name    string
		edit    func(c *Claims)
		wantErr error
	}{
		{name: "valid", edit: func(*Claims) {}},
		{name: "ciphertext bit flipped", wantErr: ErrSealedMap, edit: func(c *Claims) {
			parts := strings.Split(c.SealedResources, ".")
			parts[3] = parts[3][:2] + flipB64(parts[3][2]) + parts[3][3:]
			c.SealedResources = strings.Join(parts, ".")
		}},
		{name: "tag truncated", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = c.SealedResources[:len(c.SealedResources)-4] }},
		{name: "header edited", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = "e30" + c.SealedResources[3:] }},
		{name: "map sealed for another capability", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = otherClaims.SealedResources }},
		{name: "map with fewer handles", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = smallClaims.SealedResources }},
		{name: "map from another key set", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = foreignClaims.SealedResources }},
		{name: "handles without map", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = "" }},
		{name: "not a JWE", wantErr: ErrSealedMap, edit: func(c *Claims) { c.SealedResources = "a.b.c" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cc := c.Clone()
			tc.edit(cc)
			m, err := v.Unseal(cc)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Unseal() error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && (len(m) != 2 || m["rh_001"] != "reports/q1-financial") {
				t.Errorf("Unseal() = %v", m)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("Unseal error %v does not match ErrInvalid", err)
			}
		})
	}
	if id, err := v.ResourceID(c, "rh_002"); err != nil || id != "reports/q1-sales" {
		t.Errorf("ResourceID(rh_002) = %q, %v", id, err)
	}
	if _, err := v.ResourceID(c, "rh_404"); !errors.Is(err, ErrUnknownHandle) {
		t.Errorf("ResourceID(rh_404) error = %v, want ErrUnknownHandle", err)
	}
}
