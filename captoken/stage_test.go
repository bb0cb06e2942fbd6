package captoken

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// stagedFiles runs a staged rotation on a key file and returns the file's
// bytes at each stage: before, published, activated, pruned.
func stagedFiles(t *testing.T, maxTTL time.Duration) (stages [4][]byte, oldKID, newKID string) {
	t.Helper()
	ks := newTestKeySet(t, 1)
	save := func(i int) {
		var buf bytes.Buffer
		if err := ks.Save(&buf); err != nil {
			t.Fatal(err)
		}
		stages[i] = buf.Bytes()
	}
	oldKID = ks.ActiveKeyID()
	save(0)
	if err := ks.Publish(jose.EdDSA); err != nil {
		t.Fatal(err)
	}
	newKID = ks.PublishedKeyID()
	save(1)
	if err := ks.Activate(newKID, t0); err != nil {
		t.Fatal(err)
	}
	save(2)
	if err := ks.PruneKey(oldKID, t0.Add(maxTTL+time.Second)); err != nil {
		t.Fatal(err)
	}
	save(3)
	return stages, oldKID, newKID
}

// replica is one gateway replica's view: the key set it loaded and its
// verifier.
type replica struct {
	ks *KeySet
	v  *Verifier
}

func loadReplica(t *testing.T, data []byte, now time.Time) replica {
	t.Helper()
	ks, err := LoadKeySet(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return replica{ks: ks, v: newTestVerifier(t, ks, now, 0)}
}

// TestStagedRotationTwoReplicas loads two replicas from consecutive stages
// of a rolling rotation, as during a rolling restart, and checks that a
// token minted by either verifies and unseals on the other, at every step.
func TestStagedRotationTwoReplicas(t *testing.T) {
	const maxTTL = time.Hour
	stages, oldKID, newKID := stagedFiles(t, maxTTL)
	signer := []string{oldKID, oldKID, newKID, newKID}
	for i := 0; i+1 < len(stages); i++ {
		// At the prune step the clock is past the longest lifetime.
		now := t0
		if i == 2 {
			now = t0.Add(maxTTL + time.Minute)
		}
		older, newer := loadReplica(t, stages[i], now), loadReplica(t, stages[i+1], now)
		for _, dir := range []struct {
			name     string
			from, to replica
			kid      string
		}{
			{"older to newer", older, newer, signer[i]},
			{"newer to older", newer, older, signer[i+1]},
		} {
			tok := mustMint(t, dir.from.ks, rootClaims(now), rootResources())
			_, hdr, err := UnsafeClaimsWithoutVerification(tok)
			if err != nil || hdr.KeyID != dir.kid {
				t.Fatalf("stage %d %s: minted with kid %v (%v), want %s", i, dir.name, hdr, err, dir.kid)
			}
			c, err := dir.to.v.Verify(context.Background(), tok, Expected{})
			if err != nil {
				t.Fatalf("stage %d %s: Verify: %v", i, dir.name, err)
			}
			if _, err := dir.to.v.Unseal(c); err != nil {
				t.Fatalf("stage %d %s: Unseal: %v", i, dir.name, err)
			}
		}
	}
}

// TestStagedRotationPublishedDoesNotSign: a published key is in the JWKS
// and verifies, but Mint keeps using the active key until Activate.
func TestStagedRotationPublishedDoesNotSign(t *testing.T) {
	ks := newTestKeySet(t, 1)
	old := ks.ActiveKeyID()
	if err := ks.Publish(jose.EdDSA); err != nil {
		t.Fatal(err)
	}
	if ks.ActiveKeyID() != old {
		t.Fatalf("Publish changed the active key")
	}
	if n := len(ks.JWKS().Keys); n != 2 {
		t.Fatalf("JWKS has %d keys, want active and published", n)
	}
	infos := ks.Keys()
	if !infos[0].Active || !infos[1].Published || infos[1].KeyID != ks.PublishedKeyID() {
		t.Fatalf("Keys() = %+v", infos)
	}
	_, hdr, _ := UnsafeClaimsWithoutVerification(mustMint(t, ks, rootClaims(t0), rootResources()))
	if hdr.KeyID != old {
		t.Fatalf("minted with %s, want the active %s", hdr.KeyID, old)
	}
}

func TestStagedRotationRefusals(t *testing.T) {
	stages, oldKID, newKID := stagedFiles(t, time.Hour)
	load := func(i int) *KeySet { return loadReplica(t, stages[i], t0).ks }
	tests := []struct {
		name string
		do   func() error
	}{
		{"publish twice", func() error { return load(1).Publish(jose.EdDSA) }},
		{"rotate while published", func() error { return load(1).Rotate(t0) }},
		{"activate nothing published", func() error { return load(0).Activate(oldKID, t0) }},
		{"activate the active key", func() error { return load(2).Activate(newKID, t0) }},
		{"activate an unknown kid", func() error { return load(1).Activate("nope", t0) }},
		{"prune the active key", func() error { return load(2).PruneKey(newKID, t0.Add(48*time.Hour)) }},
		{"prune a published key", func() error { return load(1).PruneKey(newKID, t0.Add(48*time.Hour)) }},
		{"prune a key retired too recently", func() error { return load(2).PruneKey(oldKID, t0) }},
		{"prune an unknown kid", func() error { return load(2).PruneKey("nope", t0.Add(48*time.Hour)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); !errors.Is(err, ErrKeySet) {
				t.Fatalf("error = %v, want ErrKeySet", err)
			}
		})
	}
}

// TestStagedKeyFileFormats: a file without published keys keeps the
// original format byte for byte (testdata/keyset.golden predates staged
// rotation); a file with published keys is version 2, pinned by
// keyset-staged.golden, and an old version-1 file carrying them is refused.
func TestStagedKeyFileFormats(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "keyset.golden"))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := LoadKeySet(bytes.NewReader(old))
	if err != nil {
		t.Fatalf("original key file format: %v", err)
	}
	if ks.PublishedKeyID() != "" {
		t.Fatal("original format loaded with a published key")
	}
	var buf bytes.Buffer
	if err := ks.Save(&buf); err != nil || !bytes.Equal(buf.Bytes(), old) {
		t.Fatalf("original format not written back unchanged (%v)", err)
	}
	ks = newTestKeySet(t, 1) // seeded, so the published key is reproducible
	if err := ks.Rotate(t0); err != nil {
		t.Fatal(err)
	}
	if err := ks.Publish(jose.EdDSA); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := ks.Save(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "keyset-staged.golden", buf.Bytes())
	back, err := LoadKeySet(bytes.NewReader(buf.Bytes()))
	if err != nil || back.PublishedKeyID() != ks.PublishedKeyID() {
		t.Fatalf("staged file reloads with published %q (%v)", back.PublishedKeyID(), err)
	}
	v1 := bytes.Replace(buf.Bytes(), []byte(`"version": 2`), []byte(`"version": 1`), 1)
	if _, err := LoadKeySet(bytes.NewReader(v1)); !errors.Is(err, ErrKeySet) {
		t.Fatalf("version 1 with published keys: %v, want ErrKeySet", err)
	}
}

func TestLoadKeySetRefusesBadPublishedKeys(t *testing.T) {
	staged, err := os.ReadFile(filepath.Join("testdata", "keyset-staged.golden"))
	if err != nil {
		t.Fatal(err)
	}
	ring := func(m map[string]any, name string) map[string]any { return m[name].(map[string]any) }
	tests := []struct {
		name string
		edit func(m map[string]any)
	}{
		{"published signing key alone", func(m map[string]any) { delete(ring(m, "sealing"), "next") }},
		{"published sealing key alone", func(m map[string]any) { delete(ring(m, "signing"), "next") }},
		{"published key equal to the active one", func(m map[string]any) {
			ring(m, "signing")["next"] = ring(m, "signing")["active"]
		}},
		{"published signing key without private part", func(m map[string]any) {
			delete(ring(m, "signing")["next"].(map[string]any), "d")
		}},
		{"published sealing key too short", func(m map[string]any) {
			ring(m, "sealing")["next"].(map[string]any)["k"] = "AAAA"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(staged, &m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			if _, err := LoadKeySet(bytes.NewReader(mustJSON(t, m))); !errors.Is(err, ErrKeySet) {
				t.Fatalf("LoadKeySet() error = %v, want ErrKeySet", err)
			}
		})
	}
}

func TestSignJWS(t *testing.T) {
	ks := newTestKeySet(t, 1)
	jws, err := ks.SignJWS("audit-checkpoint+jws", []byte(`{"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := jose.ParseSigned(jws, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		t.Fatal(err)
	}
	jwks := ks.JWKS()
	keys := jwks.Key(obj.Signatures[0].Header.KeyID)
	if len(keys) != 1 {
		t.Fatalf("kid %q not in the JWKS", obj.Signatures[0].Header.KeyID)
	}
	if got, err := obj.Verify(keys[0]); err != nil || string(got) != `{"x":1}` {
		t.Fatalf("Verify = %s, %v", got, err)
	}
	// A statement can never pass for a capability token.
	if _, err := newTestVerifier(t, ks, t0, 0).Verify(context.Background(), jws, Expected{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("statement verified as a token: %v", err)
	}
	for _, typ := range []string{"", TokenType} {
		if _, err := ks.SignJWS(typ, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("typ %q: %v, want ErrConfig", typ, err)
		}
	}
}
