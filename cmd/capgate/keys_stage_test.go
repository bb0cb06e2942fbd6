package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
)

// keysStageRun runs `capgate keys SUB ARGS...` at the given time.
func keysStageRun(t *testing.T, at time.Time, sub string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := testEnv("", &out, &errb)
	e.now = func() time.Time { return at }
	code = run(context.Background(), append([]string{"keys", sub}, args...), e)
	return code, out.String(), errb.String()
}

func mustLoadKeys(t *testing.T, path string) *captoken.KeySet {
	t.Helper()
	ks, err := captoken.LoadKeySetFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestKeysStagedRotation walks the three stages through the command line:
// generate --rotate publishes without activating, activate switches the
// signer, prune refuses until the longest lifetime has passed.
func TestKeysStagedRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if code, _, errs := keysStageRun(t, keysCmdNow, "generate", "--out", path); code != 0 {
		t.Fatal(errs)
	}
	first := mustLoadKeys(t, path).ActiveKeyID()
	code, out, errs := keysStageRun(t, keysCmdNow, "generate", "--out", path, "--rotate")
	if code != 0 || !strings.Contains(out, "published") {
		t.Fatalf("rotate: exit %d: %s%s", code, out, errs)
	}
	ks := mustLoadKeys(t, path)
	next := ks.PublishedKeyID()
	if ks.ActiveKeyID() != first || next == "" {
		t.Fatalf("after rotate: active %s published %q, want %s still active", ks.ActiveKeyID(), next, first)
	}
	if code, _, errs := keysStageRun(t, keysCmdNow, "generate", "--out", path, "--rotate"); code != 1 ||
		!strings.Contains(errs, "activate it first") {
		t.Fatalf("second rotate: exit %d: %s", code, errs)
	}
	if code, _, errs := keysStageRun(t, keysCmdNow, "activate", "--keys", path, "--", first); code != 1 {
		t.Fatalf("activating the active key: exit %d: %s", code, errs)
	}
	if code, _, errs := keysStageRun(t, keysCmdNow, "activate", "--keys", path, "--", next); code != 0 {
		t.Fatalf("activate: exit %d: %s", code, errs)
	}
	if got := mustLoadKeys(t, path).ActiveKeyID(); got != next {
		t.Fatalf("active after activate: %s, want %s", got, next)
	}
	ttl := "24h"
	soon := keysCmdNow.Add(time.Hour)
	if code, _, errs := keysStageRun(t, soon, "prune", "--keys", path, "--older-than", ttl, "--", first); code != 1 ||
		!strings.Contains(errs, "may still be live") {
		t.Fatalf("early prune of %s: exit %d: %s", first, code, errs)
	}
	code, out, _ = keysStageRun(t, soon, "prune", "--keys", path, "--older-than", ttl)
	if code != 0 || !strings.Contains(out, "removed 0") || !strings.Contains(out, "kept "+first) {
		t.Fatalf("early prune of all: exit %d: %s", code, out)
	}
	if code, _, errs := keysStageRun(t, soon.Add(48*time.Hour), "prune", "--keys", path, "--older-than", ttl, "--", next); code != 1 ||
		!strings.Contains(errs, "active") {
		t.Fatalf("prune of the active key: exit %d: %s", code, errs)
	}
	code, out, errs = keysStageRun(t, keysCmdNow.Add(25*time.Hour), "prune", "--keys", path, "--older-than", ttl)
	if code != 0 || !strings.Contains(out, "removed 2") {
		t.Fatalf("prune: exit %d: %s%s", code, out, errs)
	}
	if n := len(mustLoadKeys(t, path).Keys()); n != 2 {
		t.Fatalf("%d keys after prune, want the active pair", n)
	}
}

func TestKeysStageUsage(t *testing.T) {
	for _, tc := range []struct {
		sub  string
		args []string
	}{
		{"activate", nil},
		{"activate", []string{"--keys", "k.json"}},
		{"prune", []string{"--keys", "k.json"}},
		{"prune", []string{"--keys", "k.json", "--older-than", "-1h"}},
		{"generate", []string{"--out", "k.json", "--activate"}},
	} {
		if code, _, _ := keysStageRun(t, keysCmdNow, tc.sub, tc.args...); code != 2 {
			t.Errorf("%s %v: exit %d, want 2", tc.sub, tc.args, code)
		}
	}
}

// TestKeyIDStartingWithDash: a key id is base64url and may start with
// '-'. After "--" it is an argument; without it the flag parser refuses
// it as a flag, and the message says to put it after "--".
func TestKeyIDStartingWithDash(t *testing.T) {
	const kid = "-LR5SjM3AhpASLSC5pJcaopvG8GovEZydr2rTzWqV3A"
	path := t.TempDir() + "/keys.json"
	code, _, errs := keysStageRun(t, keysCmdNow, "activate", "--keys", path, kid)
	if code != 2 || !strings.Contains(errs, `goes after "--"`) {
		t.Fatalf("without --: exit %d: %s; want a usage error that says to use --", code, errs)
	}
	code, _, errs = keysStageRun(t, keysCmdNow, "activate", "--keys", path, "--", kid)
	if code == 2 || strings.Contains(errs, "flag provided but not defined") {
		t.Fatalf("after --: exit %d: %s; want the id taken as the key id", code, errs)
	}
}
