package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/go-jose/go-jose/v4"
)

var keysCmdNow = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

func keysCmdRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := testEnv("", &out, &errb)
	e.now = func() time.Time { return keysCmdNow }
	code = run(context.Background(), append([]string{"keys", "generate"}, args...), e)
	return code, out.String(), errb.String()
}

func TestKeysGenerate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	code, out, errs := keysCmdRun(t, "--out", path)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v; want 0600", st.Mode(), err)
	}
	ks, err := captoken.LoadKeySetFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := ks.ActiveKeyID()
	if !strings.Contains(out, first) || !strings.Contains(out, "EdDSA") {
		t.Errorf("output does not name the active key: %s", out)
	}
	if code, _, errs := keysCmdRun(t, "--out", path); code != 1 || !strings.Contains(errs, "--rotate") {
		t.Fatalf("second generate without --rotate: exit %d, %s", code, errs)
	}
	if code, _, errs := keysCmdRun(t, "--out", path, "--rotate", "--activate"); code != 0 {
		t.Fatalf("rotate: exit %d: %s", code, errs)
	}
	ks, err = captoken.LoadKeySetFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ks.ActiveKeyID() == first || len(ks.JWKS().Keys) != 2 {
		t.Fatalf("after rotate: active %s, %d signing keys", ks.ActiveKeyID(), len(ks.JWKS().Keys))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("rotated key file mode %v", st.Mode())
	}
	if code, _, _ := keysCmdRun(t, "--out", path, "--rotate", "--activate", "--alg", "ES256"); code != 0 {
		t.Fatal("rotate to ES256 failed")
	}
	ks, _ = captoken.LoadKeySetFile(path)
	if got := ks.Algorithms(); len(got) != 2 || got[0] != jose.ES256 {
		t.Fatalf("algorithms after migration: %v", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("rotation left %d files in the directory", len(entries))
	}
}

func TestKeysGenerateRefuses(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.json")
	if code, _, _ := keysCmdRun(t, "--out", open); code != 0 {
		t.Fatal("generate failed")
	}
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no --out", nil, 2, "usage"},
		{"unknown alg", []string{"--out", filepath.Join(dir, "x.json"), "--alg", "HS256"}, 2, "usage"},
		{"alg none", []string{"--out", filepath.Join(dir, "x.json"), "--alg", "none"}, 2, "usage"},
		{"extra argument", []string{"--out", filepath.Join(dir, "x.json"), "extra"}, 2, "usage"},
		{"rotate a missing file", []string{"--out", filepath.Join(dir, "missing.json"), "--rotate"}, 1, "no such file"},
		{"rotate a world-readable file", []string{"--out", open, "--rotate"}, 1, "permissions"},
		{"unknown flag", []string{"--force"}, 2, "unknown flag --force"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := keysCmdRun(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(errs, tc.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, tc.wantCode, tc.wantErr)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"keys", "list"}, testEnv("", &out, &errb)); code != 2 {
		t.Errorf("runKeys(list) exit %d", code)
	}
}

// tokenCmdFixture writes a key file and mints a token with it.
func tokenCmdFixture(t *testing.T) (keyPath, token string) {
	t.Helper()
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	keyPath = filepath.Join(t.TempDir(), "keys.json")
	if err := ks.SaveFile(keyPath); err != nil {
		t.Fatal(err)
	}
	token, err = captoken.Mint(ks, captoken.Claims{
		Issuer: "https://capgate.test", Principal: "user:alice@example.com", Holder: "agent:summarizer",
		Audience: "documents", CapabilityID: "cap_INSPECTINSPECTINSPEC", RevocationID: "rv_INSPECTINSPECTINSPECT",
		Grant: "documents:read", Operations: []string{"retrieve"}, Handles: []string{"rh_001"},
		IssuedAt: captoken.NewNumericDate(keysCmdNow), Expiry: captoken.NewNumericDate(keysCmdNow.Add(time.Hour)),
		MaxDepth: 1, Attenuable: true,
	}, map[string]string{"rh_001": "reports/q1-financial"})
	if err != nil {
		t.Fatal(err)
	}
	return keyPath, token
}

func tokenCmdRun(t *testing.T, stdin string, now time.Time, args ...string) (int, tokenReport, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := testEnv(stdin, &out, &errb)
	e.now = func() time.Time { return now }
	code := run(context.Background(), append([]string{"token", "inspect", "--json"}, args...), e)
	var rep tokenReport
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out.String())
		}
	}
	return code, rep, errb.String()
}

func TestTokenInspect(t *testing.T) {
	keyPath, token := tokenCmdFixture(t)
	tests := []struct {
		name       string
		stdin      string
		now        time.Time
		args       []string
		wantCode   int
		wantStatus string
		wantStderr string
	}{
		{name: "unverified", args: []string{token}, wantStatus: "UNVERIFIED", wantStderr: "UNVERIFIED"},
		{name: "unverified from stdin", stdin: token + "\n", args: []string{"-"}, wantStatus: "UNVERIFIED"},
		{name: "unverified from stdin, no argument", stdin: token, wantStatus: "UNVERIFIED"},
		{name: "verified", args: []string{"--keys", keyPath, "--issuer", "https://capgate.test", "--audience", "documents", "--unseal", token},
			wantStatus: "VERIFIED"},
		{name: "verified, issuer from token", args: []string{"--keys", keyPath, token}, wantStatus: "VERIFIED"},
		{name: "wrong issuer", args: []string{"--keys", keyPath, "--issuer", "https://other.test", token},
			wantCode: 1, wantStatus: "UNVERIFIED", wantStderr: "VERIFICATION FAILED: captoken: wrong issuer"},
		{name: "expired", now: keysCmdNow.Add(2 * time.Hour), args: []string{"--keys", keyPath, token},
			wantCode: 1, wantStatus: "UNVERIFIED", wantStderr: "token expired"},
		{name: "tampered signature", args: []string{"--keys", keyPath, token[:len(token)-6] + "AAAAAA"},
			wantCode: 1, wantStatus: "UNVERIFIED", wantStderr: "invalid signature"},
		{name: "garbage", args: []string{"not-a-token"}, wantCode: 1, wantStderr: "cannot decode"},
		{name: "unseal without keys", args: []string{"--unseal", token}, wantCode: 2, wantStderr: "usage"},
		{name: "two tokens", args: []string{token, token}, wantCode: 2, wantStderr: "usage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := tc.now
			if now.IsZero() {
				now = keysCmdNow
			}
			code, rep, errs := tokenCmdRun(t, tc.stdin, now, tc.args...)
			if code != tc.wantCode || rep.Verification.Status != tc.wantStatus || !strings.Contains(errs, tc.wantStderr) {
				t.Fatalf("exit %d, status %q, stderr %q; want %d, %q, %q", code, rep.Verification.Status, errs,
					tc.wantCode, tc.wantStatus, tc.wantStderr)
			}
			if tc.wantStatus != "" && (rep.Claims == nil || rep.Claims.CapabilityID != "cap_INSPECTINSPECTINSPEC") {
				t.Fatalf("claims missing from the report: %+v", rep)
			}
			if tc.wantStatus == "UNVERIFIED" && rep.Resources != nil {
				t.Fatal("resources printed for an unverified token")
			}
		})
	}
}

func TestTokenInspectVerifiedReport(t *testing.T) {
	keyPath, token := tokenCmdFixture(t)
	code, rep, _ := tokenCmdRun(t, "", keysCmdNow, "--keys", keyPath, "--issuer", "https://capgate.test", "--unseal", token)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if rep.Resources["rh_001"] != "reports/q1-financial" {
		t.Errorf("resources %v", rep.Resources)
	}
	joined := strings.Join(rep.Verification.Passed, "\n")
	for _, want := range []string{"signature (alg EdDSA", "typ cap+jwt", "issuer (https://capgate.test)", "time (exp, nbf, iat at 2025-01-09T12:00:00Z)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("passed checks %q lack %q", joined, want)
		}
	}
	if !strings.Contains(strings.Join(rep.Verification.NotChecked, ","), "revocation") {
		t.Errorf("not_checked %v does not warn about revocation", rep.Verification.NotChecked)
	}
	if rep.Times["exp"] != "2025-01-09T13:00:00Z" || string(rep.Header["typ"]) != `"cap+jwt"` {
		t.Errorf("times %v header %v", rep.Times, rep.Header)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"token", "show"}, testEnv("", &out, &errb)); code != 2 {
		t.Errorf("runToken(show) exit %d", code)
	}
}

// TestTokenInspectHuman: without --json the report is aligned lines, times
// in RFC 3339.
func TestTokenInspectHuman(t *testing.T) {
	keyPath, token := tokenCmdFixture(t)
	var out, errb bytes.Buffer
	e := testEnv("", &out, &errb)
	e.now = func() time.Time { return keysCmdNow }
	if code := run(context.Background(), []string{"token", "inspect", "--keys", keyPath, "--unseal", token}, e); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		`(?m)^verification +VERIFIED$`,
		`(?m)^capability +cap_INSPECTINSPECTINSPEC$`,
		`(?m)^operations +retrieve$`,
		`(?m)^expires +2025-01-09T13:00:00Z$`,
		`(?m)^resources +rh_001 -> reports/q1-financial$`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("report lacks %s:\n%s", want, out.String())
		}
	}
}
