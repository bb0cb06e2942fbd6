package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/go-jose/go-jose/v4"
)

// signedTrail writes n events checkpointed every 3 with a fresh key file,
// and returns the lines, the key file and a JWKS file.
func signedTrail(t *testing.T, n int) (lines []string, keyFile, jwksFile string) {
	t.Helper()
	dir := t.TempDir()
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, jwksFile = filepath.Join(dir, "keys.json"), filepath.Join(dir, "jwks.json")
	if err := ks.SaveFile(keyFile); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(ks.JWKS())
	if err := os.WriteFile(jwksFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	h := audit.NewHandler(&buf, audit.Options{Chain: "r1",
		Checkpoints: &audit.Checkpoints{Signer: ks, Every: 3, Tick: make(chan time.Time)}})
	t.Cleanup(func() { _ = h.Close() })
	log := slog.New(h)
	for i := range n {
		log.Info("capability.invoke", "principal", "user:alice@example.com", "i", i)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"), keyFile, jwksFile
}

func TestAuditVerifyCheckpoints(t *testing.T) {
	lines, keyFile, jwksFile := signedTrail(t, 7) // 3, cp, 3, cp, 1
	file := writeAuditFile(t, lines)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, jwksFile)
	}))
	defer srv.Close()
	for _, keys := range [][]string{{"--keys", keyFile}, {"--jwks", jwksFile}, {"--jwks", srv.URL}} {
		code, out, errs := auditRun(t, "", nil, append([]string{"verify", "--checkpoint-every", "3"}, append(keys, file)...)...)
		if code != 0 || !strings.Contains(out, "9 events, 2 checkpoints verified") ||
			!strings.Contains(out, "1 events not covered") {
			t.Fatalf("%v: exit %d\n%s%s", keys, code, out, errs)
		}
	}
	_, otherKeys, _ := signedTrail(t, 0)
	if code, _, errs := auditRun(t, "", nil, "verify", "--keys", otherKeys, file); code != 1 ||
		!strings.Contains(errs, "line 4") || !strings.Contains(errs, "not one of the given keys") {
		t.Fatalf("wrong key: exit %d: %s", code, errs)
	}
	// Without the key, dropping the checkpoints is the only way to keep a
	// rewritten chain consistent; the verifier notices.
	forged := auditTrail(t, "r1", 7)
	if code, _, errs := auditRun(t, "", nil, "verify", "--keys", keyFile, "--checkpoint-every", "3",
		writeAuditFile(t, forged)); code != 1 || !strings.Contains(errs, "line 4") ||
		!strings.Contains(errs, "without a checkpoint") {
		t.Fatalf("chain without checkpoints: exit %d: %s", code, errs)
	}
	if code, out, _ := auditRun(t, "", nil, "verify", file); code != 0 || strings.Contains(out, "checkpoints") {
		t.Fatalf("without keys: exit %d: %s", code, out)
	}
}

func TestAuditVerifyKeysUsage(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "--keys", "k.json", "--jwks", "j.json"},
		{"verify", "--checkpoint-every", "3"},
		{"verify", "--keys", "k.json", "--checkpoint-every", "-1"},
	} {
		if code, _, _ := auditRun(t, "", nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errs := auditRun(t, "", nil, "verify", "--jwks", filepath.Join(t.TempDir(), "none.json")); code != 1 {
		t.Errorf("missing JWKS: exit %d: %s", code, errs)
	}
}
