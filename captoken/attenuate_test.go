package captoken

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

// attenuationFixture holds a verified root capability.
type attenuationFixture struct {
	ks     *KeySet
	v      *Verifier
	parent *Claims
}

func newAttenuationFixture(t testing.TB, edit func(c *Claims)) *attenuationFixture {
	t.Helper()
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 0)
	c := rootClaims(t0)
	if edit != nil {
		edit(&c)
	}
	parent, err := v.Verify(context.Background(), mustMint(t, ks, c, rootResources()), Expected{})
	if err != nil {
		t.Fatal(err)
	}
	return &attenuationFixture{ks: ks, v: v, parent: parent}
}

func TestAttenuate(t *testing.T) {
	opts := AttenuateOptions{Holder: "agent:summarizer", Now: t0, Purpose: "summarize Q1"}
	tests := []struct {
		name    string
		edit    func(c *Claims) // of the root
		c       Constraints
		opts    func(o *AttenuateOptions)
		wantErr error
	}{
		{name: "keep everything"},
		{name: "narrow all", c: Constraints{Operations: []string{"retrieve"}, Handles: []string{"rh_001"}, Expires: t0.Add(30 * time.Minute)}},
		{name: "same expiry", c: Constraints{Expires: t0.Add(time.Hour)}},
		{name: "extra operation", c: Constraints{Operations: []string{"retrieve", "delete"}}, wantErr: ErrNotSubset},
		{name: "wildcard operation", c: Constraints{Operations: []string{"*"}}, wantErr: ErrNotSubset},
		{name: "case-variant operation", c: Constraints{Operations: []string{"Retrieve"}}, wantErr: ErrNotSubset},
		{name: "extra handle", c: Constraints{Handles: []string{"rh_001", "rh_003"}}, wantErr: ErrNotSubset},
		{name: "later expiry", c: Constraints{Expires: t0.Add(time.Hour + time.Second)}, wantErr: ErrNotSubset},
		{name: "expiry in the past", c: Constraints{Expires: t0}, wantErr: ErrExpiryNotAfterNow},
		{name: "expiry within the current second", c: Constraints{Expires: t0.Add(999 * time.Millisecond)}, wantErr: ErrExpiryNotAfterNow},
		{name: "depth beyond the policy cap", opts: func(o *AttenuateOptions) { o.MaxDepth = 0 }, edit: func(c *Claims) { c.MaxDepth = 0 },
			wantErr: ErrDepthExceeded},
		{name: "policy cap lower than the token's", opts: func(o *AttenuateOptions) { o.MaxDepth = 1 },
			edit: func(c *Claims) {
				c.Depth, c.ParentCapabilityID, c.Ancestors = 1, "cap_PARENTPARENTPARENTPA", []string{"rv_ROOTROOTROOTROOTROOTR"}
			}, wantErr: ErrDepthExceeded},
		{name: "policy cap cannot raise the token's", opts: func(o *AttenuateOptions) { o.MaxDepth = 10 },
			edit: func(c *Claims) {
				c.MaxDepth, c.Depth, c.ParentCapabilityID, c.Ancestors = 1, 1, "cap_PARENTPARENTPARENTPA", []string{"rv_ROOTROOTROOTROOTROOTR"}
			}, wantErr: ErrDepthExceeded},
		{name: "not attenuable", edit: func(c *Claims) { c.Attenuable = false }, wantErr: ErrNotAttenuable},
		{name: "parent expired", opts: func(o *AttenuateOptions) { o.Now = t0.Add(time.Hour) }, wantErr: ErrExpired},
		{name: "no clock", opts: func(o *AttenuateOptions) { o.Now = time.Time{} }, wantErr: ErrConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newAttenuationFixture(t, tc.edit)
			o := opts
			if tc.opts != nil {
				tc.opts(&o)
			}
			before := f.parent.Clone()
			tok, child, err := Attenuate(f.ks, f.v, f.parent, tc.c, o)
			if !reflect.DeepEqual(before, f.parent) {
				t.Fatal("Attenuate modified the parent")
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Attenuate() error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if errors.Is(tc.wantErr, ErrAttenuationDenied) != errors.Is(err, ErrAttenuationDenied) {
					t.Errorf("error %v: ErrAttenuationDenied grouping wrong", err)
				}
				return
			}
			checkChild(t, f, tok, child, o.Holder)
		})
	}
}

// checkChild verifies tok and checks it against its parent.
func checkChild(t *testing.T, f *attenuationFixture, tok string, child *Claims, holder string) {
	t.Helper()
	got, err := f.v.Verify(context.Background(), tok, Expected{Audience: f.parent.Audience})
	if err != nil {
		t.Fatalf("child does not verify: %v", err)
	}
	if !reflect.DeepEqual(got, child) {
		t.Fatalf("returned child %+v differs from the token's %+v", child, got)
	}
	p := f.parent
	if child.CapabilityID == p.CapabilityID || child.RevocationID == p.RevocationID || child.ParentCapabilityID != p.CapabilityID {
		t.Error("child ids not fresh or pcid wrong")
	}
	if !slices.Equal(child.Ancestors, append(slices.Clone(p.Ancestors), p.RevocationID)) {
		t.Errorf("child ancestors %v", child.Ancestors)
	}
	if child.Holder != holder || child.Principal != p.Principal || child.Grant != p.Grant || child.Depth != p.Depth+1 {
		t.Errorf("child %+v", child)
	}
	m, err := f.v.Unseal(child)
	if err != nil {
		t.Fatal(err)
	}
	for h, id := range m {
		if rootResources()[h] != id {
			t.Errorf("child maps %s to %s", h, id)
		}
	}
}

// TestAttenuateNeverWidens runs random chains of attenuations, many of
// them attempts to widen, and checks the invariants after every step.
func TestAttenuateNeverWidens(t *testing.T) {
	allOps := []string{"retrieve", "search", "list", "update", "delete", "*"}
	allHandles := []string{"rh_001", "rh_002", "rh_003", "rh_004"}
	res := map[string]string{"rh_001": "reports/q1-financial", "rh_002": "reports/q1-sales", "rh_003": "reports/q2-financial"}
	ks := newTestKeySet(t, 1)
	rng := newRand(42)
	granted, refused := 0, 0
	for chain := range 60 {
		root := rootClaims(t0)
		root.CapabilityID, root.RevocationID = NewCapabilityID(), NewRevocationID()
		root.Handles, root.MaxDepth = []string{"rh_001", "rh_002", "rh_003"}, 3+rng.IntN(6)
		now := t0
		v := newTestVerifier(t, ks, now, 0)
		parent, err := v.Verify(context.Background(), mustMint(t, ks, root, res), Expected{})
		if err != nil {
			t.Fatal(err)
		}
		rootIDs := map[string]bool{parent.RevocationID: true}
		for step := 0; step < 8; step++ {
			// One attempt in three draws from everything (likely widening),
			// the others from what the parent holds (always narrowing).
			c := Constraints{Operations: pick(rng, parent.Operations), Handles: pick(rng, parent.Handles)}
			if rng.IntN(3) == 0 {
				c = Constraints{Operations: pick(rng, allOps), Handles: pick(rng, allHandles)}
			}
			if rng.IntN(2) == 0 {
				c.Expires = parent.Expiry.Time().Add(time.Duration(rng.IntN(600)-500) * time.Second)
			}
			tok, child, err := Attenuate(ks, v, parent, c, AttenuateOptions{Now: now, MaxDepth: rng.IntN(10)})
			if err != nil {
				if !errors.Is(err, ErrAttenuationDenied) && !errors.Is(err, ErrInvalidClaims) {
					t.Fatalf("chain %d step %d: unexpected error %v", chain, step, err)
				}
				refused++
				continue
			}
			granted++
			if got, err := v.Verify(context.Background(), tok, Expected{}); err != nil || !reflect.DeepEqual(got, child) {
				t.Fatalf("chain %d step %d: child token: %v", chain, step, err)
			}
			checkNarrower(t, parent, child)
			for id := range rootIDs {
				if !slices.Contains(child.RevocationIDs(), id) {
					t.Fatalf("chain %d step %d: child lost ancestor revocation id %s", chain, step, id)
				}
			}
			rootIDs[child.RevocationID] = true
			parent = child
		}
	}
	if granted < 50 || refused < 50 {
		t.Fatalf("property test too one-sided: %d granted, %d refused", granted, refused)
	}
	t.Logf("%d attenuations granted, %d refused", granted, refused)
}

func checkNarrower(t *testing.T, parent, child *Claims) {
	t.Helper()
	for _, op := range child.Operations {
		if !parent.HasOperation(op) {
			t.Fatalf("child operation %q not in parent %v", op, parent.Operations)
		}
	}
	for _, h := range child.Handles {
		if !parent.HasHandle(h) {
			t.Fatalf("child handle %q not in parent %v", h, parent.Handles)
		}
	}
	if child.Expiry > parent.Expiry || child.Depth != parent.Depth+1 || child.MaxDepth > parent.MaxDepth || child.Depth > child.MaxDepth {
		t.Fatalf("child exp %d dep %d/%d, parent exp %d dep %d/%d",
			child.Expiry, child.Depth, child.MaxDepth, parent.Expiry, parent.Depth, parent.MaxDepth)
	}
}
