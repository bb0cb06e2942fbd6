package captoken

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// clock is a settable clock for tests.
type clock struct{ now atomic.Int64 }

func newClock(t time.Time) *clock { c := &clock{}; c.set(t); return c }
func (c *clock) set(t time.Time)  { c.now.Store(t.UnixNano()) }
func (c *clock) Now() time.Time   { return time.Unix(0, c.now.Load()).UTC() }

func newCachedVerifier(t *testing.T, ks *KeySet, clk *clock, size int) *Verifier {
	t.Helper()
	v, err := NewVerifier(ks, VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{jose.EdDSA},
		Now: clk.Now, CacheSize: size})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCacheRechecksClockAndAudience(t *testing.T) {
	ks := newTestKeySet(t, 1)
	clk := newClock(t0)
	v := newCachedVerifier(t, ks, clk, 8)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	ctx := context.Background()

	first, err := v.Verify(ctx, tok, Expected{})
	if err != nil || v.cache.len() != 1 {
		t.Fatalf("first Verify: %v, cache len %d", err, v.cache.len())
	}
	first.Operations[0] = "delete" // the caller's copy; must not reach the cache
	second, err := v.Verify(ctx, tok, Expected{Audience: testAudience})
	if err != nil || second.Operations[0] != "retrieve" {
		t.Fatalf("cached Verify: %v, ops %v", err, second.Operations)
	}
	if _, err := v.Verify(ctx, tok, Expected{Audience: "summarizer"}); !errors.Is(err, ErrWrongAudience) {
		t.Fatalf("cached Verify with wrong audience: %v", err)
	}
	clk.set(t0.Add(time.Hour))
	if _, err := v.Verify(ctx, tok, Expected{}); !errors.Is(err, ErrExpired) {
		t.Fatalf("cached Verify after expiry: %v, want ErrExpired", err)
	}
	if v.cache.len() != 0 {
		t.Errorf("expired entry still cached")
	}
}

func TestCacheNeverStoresFailures(t *testing.T) {
	ks := newTestKeySet(t, 1)
	clk := newClock(t0.Add(2 * time.Hour))
	v := newCachedVerifier(t, ks, clk, 8)
	ctx := context.Background()
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	bad := []struct {
		token string
		want  Expected
	}{
		{token: tok},                                      // expired at this clock
		{token: malleateS(t, tok)},                        // bad signature
		{token: tok[:len(tok)-10]},                        // truncated
		{token: tok, want: Expected{Audience: "someone"}}, // wrong audience
	}
	for _, b := range bad {
		if _, err := v.Verify(ctx, b.token, b.want); err == nil {
			t.Fatal("expected a failure")
		}
	}
	if n := v.cache.len(); n != 0 {
		t.Fatalf("cache holds %d failures", n)
	}
	// A token that failed before is verified afresh once it is valid.
	clk.set(t0)
	if _, err := v.Verify(ctx, tok, Expected{}); err != nil {
		t.Fatal(err)
	}
}

func TestCacheBoundedAndPrunedKeys(t *testing.T) {
	ks := newTestKeySet(t, 1)
	clk := newClock(t0)
	v := newCachedVerifier(t, ks, clk, 2)
	ctx := context.Background()
	var toks []string
	for range 3 {
		c := rootClaims(t0)
		c.CapabilityID = NewCapabilityID()
		toks = append(toks, mustMint(t, ks, c, rootResources()))
	}
	for _, tok := range toks {
		if _, err := v.Verify(ctx, tok, Expected{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.cache.len(); n != 2 {
		t.Fatalf("cache len %d, want 2", n)
	}
	if err := ks.Rotate(t0); err != nil {
		t.Fatal(err)
	}
	ks.Prune(t0.Add(time.Second))
	if _, err := v.Verify(ctx, toks[2], Expected{}); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("cached token of a pruned key: %v, want ErrUnknownKey", err)
	}
}

func TestVerifyConcurrentWithRotation(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newCachedVerifier(t, ks, newClock(t0), 16)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if _, err := v.Verify(context.Background(), tok, Expected{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			if err := ks.Rotate(t0); err != nil {
				t.Error(err)
			}
			if _, err := Mint(ks, rootClaims(t0), rootResources()); err != nil {
				t.Error(err)
			}
			_ = ks.JWKS()
		}
	})
	wg.Wait()
}

func TestVerifierConfig(t *testing.T) {
	ks := newTestKeySet(t, 1)
	tests := []struct {
		name    string
		cfg     VerifierConfig
		wantErr error
	}{
		{name: "valid", cfg: VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256}}},
		{name: "no algorithms", wantErr: ErrConfig, cfg: VerifierConfig{Issuer: testIssuer}},
		{name: "HS256", wantErr: ErrConfig, cfg: VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{jose.HS256}}},
		{name: "none", wantErr: ErrConfig, cfg: VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{"none"}}},
		{name: "no issuer", wantErr: ErrConfig, cfg: VerifierConfig{Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}}},
		{name: "negative leeway", wantErr: ErrConfig, cfg: VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Leeway: -1}},
		{name: "negative cache", wantErr: ErrConfig, cfg: VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, CacheSize: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewVerifier(ks, tc.cfg)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("NewVerifier() error = %v, want %v", err, tc.wantErr)
			}
		})
	}
	if _, err := NewVerifier(nil, tests[0].cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("nil key set: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v := newTestVerifier(t, ks, t0, 0)
	if _, err := v.Verify(ctx, "x", Expected{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
