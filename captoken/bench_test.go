package captoken

import (
	"context"
	"testing"
)

func BenchmarkMint(b *testing.B) {
	ks := newTestKeySet(b, 1)
	c := rootClaims(t0)
	for b.Loop() {
		if _, err := Mint(ks, c, rootResources()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	ks := newTestKeySet(b, 1)
	v := newTestVerifier(b, ks, t0, 0)
	tok := mustMint(b, ks, rootClaims(t0), rootResources())
	ctx := context.Background()
	for b.Loop() {
		if _, err := v.Verify(ctx, tok, Expected{Audience: testAudience}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyCached(b *testing.B) {
	ks := newTestKeySet(b, 1)
	v := newTestVerifier(b, ks, t0, 1024)
	tok := mustMint(b, ks, rootClaims(t0), rootResources())
	ctx := context.Background()
	for b.Loop() {
		if _, err := v.Verify(ctx, tok, Expected{Audience: testAudience}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyPackedCached is BenchmarkVerifyCached for the packed
// token the capability index keeps.
func BenchmarkVerifyPackedCached(b *testing.B) {
	ks := newTestKeySet(b, 1)
	v := newTestVerifier(b, ks, t0, 1024)
	p, err := Pack(mustMint(b, ks, rootClaims(t0), rootResources()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := v.VerifyPacked(ctx, p, Expected{Audience: testAudience}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAttenuate(b *testing.B) {
	f := newAttenuationFixture(b, nil)
	c := Constraints{Operations: []string{"retrieve"}, Handles: []string{"rh_001"}}
	opts := AttenuateOptions{Holder: "agent:summarizer", Now: t0}
	for b.Loop() {
		if _, _, err := Attenuate(f.ks, f.v, f.parent, c, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnseal(b *testing.B) {
	f := newAttenuationFixture(b, nil)
	for b.Loop() {
		if _, err := f.v.Unseal(f.parent); err != nil {
			b.Fatal(err)
		}
	}
}
