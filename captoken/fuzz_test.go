package captoken

import (
	"bytes"
	"context"
	"maps"
	"reflect"
	"testing"
	"time"
)

// FuzzVerify feeds arbitrary strings to Verify (and to the unverified
// decoder). Nothing may panic, and Verify may accept only tokens whose
// claims are exactly those of a token the test minted itself; the sealed
// map must then open to exactly the minted resources. A string that packs
// verifies packed exactly as it does as a string.
func FuzzVerify(f *testing.F) {
	ks := newTestKeySet(f, 1)
	v := newTestVerifier(f, ks, t0, 0)
	minted := map[string]*Claims{}
	add := func(tok string) {
		c, err := v.Verify(context.Background(), tok, Expected{})
		if err != nil {
			f.Fatal(err)
		}
		minted[c.CapabilityID] = c
		f.Add(tok)
	}
	root := mustMint(f, ks, rootClaims(t0), rootResources())
	add(root)
	bare := rootClaims(t0)
	bare.CapabilityID, bare.Handles = "cap_BAREBAREBAREBAREBARE", nil
	add(mustMint(f, ks, bare, nil))
	parent, _ := v.Verify(context.Background(), root, Expected{})
	child, _, err := Attenuate(ks, v, parent, Constraints{Operations: []string{"retrieve"}, Handles: []string{"rh_001"}},
		AttenuateOptions{Now: t0, Holder: "agent:summarizer", Rand: seededReader(9)})
	if err != nil {
		f.Fatal(err)
	}
	add(child)
	f.Add(malleateS(f, root))
	f.Add(root[:len(root)-1] + flipB64(root[len(root)-1]))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("")
	f.Add("...")

	// cached shares one verified-claims cache between the string and the
	// packed form, which are tried in either order, each twice (a miss,
	// then a hit): every answer must be the uncached verifier's.
	cached := newTestVerifier(f, ks, t0, 64)
	f.Fuzz(func(t *testing.T, tok string) {
		_, _, _ = UnsafeClaimsWithoutVerification(tok)
		got, err := v.Verify(context.Background(), tok, Expected{})
		checkCachedAgrees(t, cached, tok, got, err)
		if err != nil {
			checkErrorClass(t, err)
			return
		}
		want, ok := minted[got.CapabilityID]
		if !ok {
			t.Fatalf("accepted a capability that was never minted: %+v", got)
		}
		// srm differs between runs (random IVs), so compare it by content.
		g, w := got.Clone(), want.Clone()
		g.SealedResources, w.SealedResources = "", ""
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("accepted claims %+v, minted %+v", got, want)
		}
		gm, err := v.Unseal(got)
		wm, _ := v.Unseal(want)
		if err != nil || !maps.Equal(gm, wm) {
			t.Fatalf("accepted token's sealed map %v (%v), minted %v", gm, err, wm)
		}
	})
}

// checkCachedAgrees verifies tok with the cached verifier, as a string
// and packed, in an order the token picks, each twice (a miss, then a
// hit), and fails unless every answer is want and wantErr's class.
func checkCachedAgrees(t *testing.T, cached *Verifier, tok string, want *Claims, wantErr error) {
	t.Helper()
	same := func(how string, c *Claims, err error) {
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(c, want) {
			t.Fatalf("%s = %+v, %v; uncached Verify = %+v, %v", how, c, err, want, wantErr)
		}
	}
	p, perr := Pack(tok)
	tries := []func(){
		func() {
			c, err := cached.Verify(context.Background(), tok, Expected{})
			same("cached Verify", c, err)
		},
		func() {
			if perr == nil {
				c, err := cached.VerifyPacked(context.Background(), p, Expected{})
				same("cached VerifyPacked", c, err)
			}
		},
	}
	if len(tok)%2 == 1 {
		tries[0], tries[1] = tries[1], tries[0]
	}
	for _, try := range append(tries, tries...) {
		try()
	}
}

// FuzzUnseal feeds arbitrary sealed maps to Unseal: no panic, and success
// only for a map that the key set sealed for this very capability.
func FuzzUnseal(f *testing.F) {
	ks := newTestKeySet(f, 1)
	v := newTestVerifier(f, ks, t0, 0)
	c, _, err := UnsafeClaimsWithoutVerification(mustMint(f, ks, rootClaims(t0), rootResources()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(c.SealedResources)
	f.Add("eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.AAAA.AAAA")
	f.Fuzz(func(t *testing.T, srm string) {
		cc := c.Clone()
		cc.SealedResources = srm
		m, err := v.Unseal(cc)
		if err == nil && !maps.Equal(m, rootResources()) {
			t.Fatalf("Unseal accepted a foreign map: %v", m)
		}
	})
}

// FuzzLoadKeySet feeds arbitrary key files to LoadKeySet: no panic, and a
// loaded set saves and loads back to the same keys.
func FuzzLoadKeySet(f *testing.F) {
	ks := newTestKeySet(f, 1)
	if err := ks.Rotate(t0); err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ks.Save(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"version":1,"signing":{"active":{}},"sealing":{"active":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		loaded, err := LoadKeySet(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := loaded.Save(&out); err != nil {
			t.Fatal(err)
		}
		again, err := LoadKeySet(&out)
		if err != nil {
			t.Fatalf("saved key set does not load: %v", err)
		}
		if !reflect.DeepEqual(again.Keys(), loaded.Keys()) {
			t.Fatal("round trip changed the keys")
		}
		if _, err := Mint(loaded, rootClaims(time.Unix(1, 0)), rootResources()); err != nil {
			t.Fatalf("a loaded key set cannot mint: %v", err)
		}
	})
}
