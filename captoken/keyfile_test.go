package captoken

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

func savedKeySet(t *testing.T) []byte {
	t.Helper()
	ks := newTestKeySet(t, 1)
	if err := ks.Rotate(t0); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ks.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSaveLoadRoundTrip(t *testing.T) {
	data := savedKeySet(t)
	golden(t, "keyset.golden", data)
	ks, err := LoadKeySet(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	orig := newTestKeySet(t, 1)
	if err := orig.Rotate(t0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ks.Keys(), orig.Keys()) {
		t.Fatalf("loaded keys %+v, want %+v", ks.Keys(), orig.Keys())
	}
	// Tokens cross between the loaded and the original set both ways.
	v := newTestVerifier(t, orig, t0, 0)
	c, err := v.Verify(context.Background(), mustMint(t, ks, rootClaims(t0), rootResources()), Expected{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newTestVerifier(t, ks, t0, 0).Unseal(c); err != nil {
		t.Fatal(err)
	}
	if err := ks.Rotate(t0); err != nil {
		t.Fatalf("Rotate after load: %v", err)
	}
}

func TestLoadKeySetRefuses(t *testing.T) {
	edit := func(f func(m map[string]any)) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			var m map[string]any
			if err := json.Unmarshal(savedKeySet(t), &m); err != nil {
				t.Fatal(err)
			}
			f(m)
			return mustJSON(t, m)
		}
	}
	ring := func(m map[string]any, name string) map[string]any { return m[name].(map[string]any) }
	active := func(m map[string]any, name string) map[string]any { return ring(m, name)["active"].(map[string]any) }
	tests := []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"not JSON", func(*testing.T) []byte { return []byte("kid: x") }},
		{"trailing data", func(t *testing.T) []byte { return append(savedKeySet(t), "{}"...) }},
		{"too large", func(*testing.T) []byte { return bytes.Repeat([]byte(" "), maxKeyFileSize+1) }},
		{"unknown version", edit(func(m map[string]any) { m["version"] = 3 })},
		{"unknown field", edit(func(m map[string]any) { m["comment"] = "x" })},
		{"no active signing key", edit(func(m map[string]any) { delete(ring(m, "signing"), "active") })},
		{"no active sealing key", edit(func(m map[string]any) { delete(ring(m, "sealing"), "active") })},
		{"duplicate signing kid", edit(func(m map[string]any) {
			prev := ring(m, "signing")["previous"].([]any)
			prev[0].(map[string]any)["key"] = active(m, "signing")
		})},
		{"sealing kid equal to a signing kid", edit(func(m map[string]any) {
			active(m, "sealing")["kid"] = active(m, "signing")["kid"]
		})},
		{"kid not the thumbprint", edit(func(m map[string]any) { active(m, "signing")["kid"] = "my-key" })},
		{"unsupported signing alg", edit(func(m map[string]any) { active(m, "signing")["alg"] = "HS256" })},
		{"signing alg not matching the key", edit(func(m map[string]any) { active(m, "signing")["alg"] = "ES256" })},
		{"public signing key only", edit(func(m map[string]any) { delete(active(m, "signing"), "d") })},
		{"symmetric signing key", edit(func(m map[string]any) { ring(m, "signing")["active"] = active(m, "sealing") })},
		{"short sealing key", edit(func(m map[string]any) { active(m, "sealing")["k"] = "AAAAAAAAAAAAAAAAAAAAAA" })},
		{"unsupported sealing alg", edit(func(m map[string]any) { active(m, "sealing")["alg"] = "A256KW" })},
		{"previous key without retirement", edit(func(m map[string]any) {
			prev := ring(m, "signing")["previous"].([]any)
			delete(prev[0].(map[string]any), "retired")
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadKeySet(bytes.NewReader(tc.data(t)))
			if !errors.Is(err, ErrKeySet) {
				t.Fatalf("LoadKeySet() error = %v, want ErrKeySet", err)
			}
		})
	}
}

func TestKeyFilePermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.json")
	if err := newTestKeySet(t, 1).SaveFile(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("SaveFile mode %v, %v; want 0600", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("SaveFile left %d files behind", len(entries))
	}
	if _, err := LoadKeySetFile(path); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644, 0o660} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKeySetFile(path); !errors.Is(err, ErrKeyFilePermissions) {
			t.Errorf("mode %04o: error = %v, want ErrKeyFilePermissions", mode, err)
		}
	}
	if _, err := LoadKeySetFile(dir); !errors.Is(err, ErrKeySet) && !errors.Is(err, ErrKeyFilePermissions) {
		t.Errorf("directory: %v", err)
	}
	if _, err := LoadKeySetFile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := newTestKeySet(t, 1).SaveFile(filepath.Join(dir, "no", "such", "dir.json")); err == nil ||
		strings.Contains(err.Error(), "panic") {
		t.Errorf("SaveFile into a missing directory: %v", err)
	}
}

func TestLoadKeySetRefusesMismatchedECKey(t *testing.T) {
	save := func() map[string]any {
		ks, err := GenerateKeySet(jose.ES256)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := ks.Save(&buf); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	active := func(m map[string]any) map[string]any {
		return m["signing"].(map[string]any)["active"].(map[string]any)
	}
	m, other := save(), save()
	if _, err := LoadKeySet(bytes.NewReader(mustJSON(t, m))); err != nil {
		t.Fatalf("ES256 key set does not load: %v", err)
	}
	active(m)["d"] = active(other)["d"]
	if _, err := LoadKeySet(bytes.NewReader(mustJSON(t, m))); !errors.Is(err, ErrKeySet) {
		t.Fatalf("EC key with a foreign d: %v, want ErrKeySet", err)
	}
}
