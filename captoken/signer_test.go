package captoken

import (
	"context"
	"sync"
	"testing"
)

// TestCachedSignerConcurrent: tokens minted at once through the key's
// cached signer all verify, with the header a fresh signer writes.
func TestCachedSignerConcurrent(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 0)
	var wg sync.WaitGroup
	toks := make([]string, 16)
	for i := range toks {
		wg.Go(func() { toks[i] = mustMint(t, ks, rootClaims(t0), rootResources()) })
	}
	wg.Wait()
	for _, tok := range toks {
		if _, err := v.Verify(context.Background(), tok, Expected{Audience: testAudience}); err != nil {
			t.Fatalf("a token minted concurrently does not verify: %v", err)
		}
	}
	k := ks.activeSigning()
	fresh, err := signCompactWith(k, TokenType, map[string]string{"x": "y"}, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	cached, err := signCompact(k, TokenType, []byte("{}"))
	if err != nil || cached == fresh {
		t.Errorf("the cached signer was used for a call with its own header: %v", err)
	}
}
