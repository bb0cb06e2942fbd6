package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/revocation/redistest"
	"github.com/redis/go-redis/v9"
)

// auditTrail returns n events of chain written by the audit handler.
func auditTrail(t *testing.T, chain string, n int) []string {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(audit.NewHandler(&buf, audit.Options{Chain: chain}))
	for i := range n {
		log.Info("capability.invoke", "principal", "user:alice@example.com", "decision", "allow", "i", i)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func auditRun(t *testing.T, stdin string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := testEnv(stdin, &out, &errb)
	e.getenv = func(k string) string { return env[k] }
	code = run(context.Background(), append([]string{"audit"}, args...), e)
	return code, out.String(), errb.String()
}

func writeAuditFile(t *testing.T, lines []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAuditVerifyFile(t *testing.T) {
	lines := auditTrail(t, "r1", 4)
	intact := writeAuditFile(t, lines)
	tampered := writeAuditFile(t, []string{lines[0], strings.Replace(lines[1], "alice", "mallory", 1), lines[2], lines[3]})
	deleted := writeAuditFile(t, []string{lines[0], lines[1], lines[3]})
	rotated := writeAuditFile(t, lines[2:])
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"intact file", []string{"verify", intact}, "", 0, "4 events, chain intact\n", ""},
		{"intact stdin", []string{"verify", "-"}, strings.Join(lines, "\n") + "\n", 0, "4 events, chain intact\n", ""},
		{"stdin by default", []string{"verify"}, strings.Join(lines, "\n"), 0, "4 events, chain intact\n", ""},
		{"empty input", []string{"verify"}, "", 0, "0 events, chain intact\n", ""},
		{"verbose", []string{"verify", "--verbose", intact}, "", 0, `chain "r1": seq 1..4, 4 events, head `, ""},
		{"tampered line", []string{"verify", tampered}, "", 1, "", `line 2 (chain "r1", seq 2): audit: chain tampered`},
		{"deleted line", []string{"verify", deleted}, "", 1, "", "line 3 (chain \"r1\", seq 4): audit: chain tampered: seq jumps from 2 to 4"},
		{"rotated file, strict", []string{"verify", rotated}, "", 1, "", "line 1"},
		{"rotated file, --partial", []string{"verify", rotated, "--partial"}, "", 0, "2 events, chain intact\n", ""},
		{"garbage", []string{"verify"}, "not json\n", 1, "", "line 1: audit: malformed event"},
		{"missing file", []string{"verify", filepath.Join(t.TempDir(), "nope")}, "", 1, "", "no such file"},
		{"no command", nil, "", 2, "", "usage:"},
		{"unknown command", []string{"rotate"}, "", 2, "", `unknown command "rotate"`},
		{"two files", []string{"verify", intact, intact}, "", 2, "", "unexpected argument"},
		{"unknown flag", []string{"verify", "--fast"}, "", 2, "", "unknown flag --fast"},
		{"stream without redis", []string{"verify", "--stream", "k"}, "", 2, "", "need --redis"},
		{"redis without stream", []string{"verify", "--redis", "redis://127.0.0.1:1"}, "", 2, "", "needs --stream"},
		{"redis with a file", []string{"verify", "--redis", "redis://127.0.0.1:1", "--stream", "k", intact}, "", 2, "", "takes no FILE"},
		{"bad redis URL", []string{"verify", "--redis", "http://x", "--stream", "k"}, "", 2, "", "--redis:"},
		{"empty password variable", []string{"verify", "--redis", "redis://127.0.0.1:1", "--stream", "k", "--password-env", "NOPE"}, "", 2, "", "NOPE is empty"},
		{"help", []string{"help"}, "", 0, "usage:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := auditRun(t, tt.stdin, nil, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d; want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errs)
			}
			if !strings.Contains(out, tt.wantStdout) || !strings.Contains(errs, tt.wantStderr) {
				t.Fatalf("stdout %q, stderr %q; want %q and %q", out, errs, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

func TestAuditVerifyStream(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	const key = "capgate:audit"
	for _, chain := range []string{"r1", "r2"} {
		s := audit.NewRedisStream(srv.Client, key, 0, time.Second)
		log := slog.New(audit.NewHandler(&bytes.Buffer{}, audit.Options{Chain: chain, Stream: s}))
		for i := range 5 {
			log.Info("capability.invoke", "i", i)
		}
		_ = s.Close()
	}
	url := "redis://" + srv.Addr
	code, out, errs := auditRun(t, "", nil, "verify", "--redis", url, "--stream", key)
	if code != 0 || out != "10 events, chain intact (2 chains)\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}

	if err := srv.Client.ConfigSet(ctx, "requirepass", "s3cret").Err(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AUDIT_REDIS_PASSWORD": "s3cret"}
	if code, _, errs := auditRun(t, "", env, "verify", "--redis", url, "--stream", key, "--password-env", "AUDIT_REDIS_PASSWORD"); code != 0 {
		t.Fatalf("with --password-env: exit %d: %s", code, errs)
	}
	authed := srv.NewClient(&redis.Options{Password: "s3cret"})
	msgs := authed.XRange(ctx, key, "-", "+").Val()
	authed.XDel(ctx, key, msgs[2].ID)
	code, _, errs = auditRun(t, "", env, "verify", "--redis", url, "--stream", key, "--password-env", "AUDIT_REDIS_PASSWORD")
	if code != 1 || !strings.Contains(errs, "entry 3 (id "+msgs[3].ID+")") || !strings.Contains(errs, "seq jumps from 2 to 4") {
		t.Fatalf("after XDEL: exit %d, stderr %q", code, errs)
	}

	srv.Kill()
	if code, _, errs := auditRun(t, "", env, "verify", "--redis", url, "--stream", key, "--password-env", "AUDIT_REDIS_PASSWORD"); code != 1 || !strings.Contains(errs, "reading stream") {
		t.Fatalf("Redis down: exit %d, stderr %q", code, errs)
	}
}
