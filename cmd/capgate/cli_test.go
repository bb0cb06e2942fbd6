package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/authn"
)

// walk calls f with the words of every command and group, the root first.
func walk(c *command, f func(words []string, c *command)) {
	var words []string
	if c.name != "" {
		words = strings.Fields(c.name)
	}
	f(words, c)
	for _, sub := range c.subs {
		walk(sub, f)
	}
}

// TestEveryCommandHelp: -h, --help, help and `capgate help NAME...` print
// the command's usage on stdout and exit 0, everywhere, the same bytes.
func TestEveryCommandHelp(t *testing.T) {
	ctx := context.Background()
	walk(commands(), func(words []string, c *command) {
		want := c.usage(ctx)
		asked := [][]string{append([]string{"help"}, words...)}
		for _, h := range []string{"-h", "--help", "help"} {
			asked = append(asked, append(append([]string{}, words...), h))
		}
		for _, args := range asked {
			code, out, errOut := runCmd(t, args...)
			if code != 0 || out != want || errOut != "" {
				t.Errorf("capgate %s: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout",
					strings.Join(args, " "), code, out, errOut)
			}
		}
	})
}

// TestEveryFlagInEverySynopsis: every flag a leaf defines is in its
// synopsis, which its usage, its group's and the top level's show as the
// same lines; its usage lists every flag with its text.
func TestEveryFlagInEverySynopsis(t *testing.T) {
	ctx := context.Background()
	root := commands()
	top := root.usage(ctx)
	walk(root, func(words []string, group *command) {
		if group.run != nil {
			return
		}
		list := group.usage(ctx)
		group.eachLeaf(func(c *command) {
			fs := c.flags(ctx)
			if fs == nil {
				t.Fatalf("capgate %s --help returned no flag set", c.name)
			}
			var forms strings.Builder
			for _, form := range c.synopsis {
				writeForm(&forms, "  capgate "+c.name+" ", form)
			}
			if !strings.Contains(list, forms.String()) || !strings.Contains(top, forms.String()) {
				t.Errorf("capgate %s: the usage of %q or the top level does not show its synopsis\n%s", c.name, group.title(), forms.String())
			}
			own := c.usage(ctx)
			fs.VisitAll(func(f *flag.Flag) {
				name, text := flag.UnquoteUsage(f)
				if !hasFlag(forms.String(), flagName(f.Name)) {
					t.Errorf("capgate %s: %s is not in the synopsis", c.name, flagName(f.Name))
				}
				if !strings.Contains(own, "  "+strings.TrimSpace(flagName(f.Name)+" "+name)) || !strings.Contains(strings.Join(strings.Fields(own), " "), text) {
					t.Errorf("capgate %s --help does not list %s with its text", c.name, flagName(f.Name))
				}
			})
		})
	})
}

// hasFlag reports whether s names the flag f as a whole word.
func hasFlag(s, f string) bool {
	return regexp.MustCompile(`(^|[\s\[(|])` + regexp.QuoteMeta(f) + `($|[\s\]|.)=])`).MatchString(s)
}

// TestEveryCommandBadFlag: a bad flag prints what was wrong and the usage
// on stderr and exits 2, everywhere.
func TestEveryCommandBadFlag(t *testing.T) {
	ctx := context.Background()
	walk(commands(), func(words []string, c *command) {
		args := append(append([]string{}, words...), "--no-such-flag")
		code, out, errOut := runCmd(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "no-such-flag") || !strings.HasSuffix(errOut, c.usage(ctx)) {
			t.Errorf("capgate %s: exit %d, stdout %q, stderr %q; want 2, the flag named and the usage on stderr",
				strings.Join(args, " "), code, out, errOut)
		}
	})
}

// TestDidYouMean: a mistyped command or flag gets the nearest known name,
// and the key-id hint only where a key id is an argument.
func TestDidYouMean(t *testing.T) {
	const kid = "-LR5SjM3AhpASLSC5pJcaopvG8GovEZydr2rTzWqV3A"
	tests := []struct {
		args      []string
		want      string
		keyIDHint bool
	}{
		{[]string{"demo", "--srve"}, "capgate demo: unknown flag --srve; did you mean --serve?", false},
		{[]string{"demo", "-srve"}, "unknown flag -srve; did you mean --serve?", false},
		{[]string{"demo", "--admin-adr=127.0.0.1:1"}, "unknown flag --admin-adr; did you mean --admin-addr?", false},
		{[]string{"servee"}, `capgate: unknown command "servee"; did you mean serve?`, false},
		{[]string{"keys", "generat"}, `capgate keys: unknown command "generat"; did you mean generate?`, false},
		{[]string{"help", "aprovals"}, `unknown command "aprovals"; did you mean approvals?`, false},
		{[]string{"revoke", "--capabilty", "c"}, "did you mean --capability?", false},
		{[]string{"demo", kid}, "unknown flag " + kid, false},
		{[]string{"keys", "activate", "--keys", "k.json", kid}, "unknown flag " + kid, true},
		{[]string{"keys", "prune", "--keys", "k.json", "--older-than", "1h", kid}, "unknown flag " + kid, true},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, tt.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("capgate %v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
		if hint := strings.Contains(errOut, `goes after "--"`); hint != tt.keyIDHint {
			t.Errorf("capgate %v: key-id hint %v, want %v: %q", tt.args, hint, tt.keyIDHint, errOut)
		}
	}
	// A value that starts with '-' is the value, not an unknown flag.
	code, _, errOut := runCmd(t, "bench", "--duration", "-x")
	if code != 2 || strings.Contains(errOut, "unknown flag") {
		t.Errorf("bench --duration -x: exit %d, %q; want the bad value named", code, errOut)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"serve", "demo", "keys", "revoke", "approvals", "v"}
	for word, want := range map[string]string{"srve": "serve", "servee": "serve", "dem": "demo", "key": "keys",
		"revokee": "revoke", "aproval": "approvals", "x": "v", "zzzz": "", "version2": ""} {
		if got := nearest(word, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestUsageErrorsNameTheProblem(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "capgate: missing command"},
		{[]string{"nope"}, `capgate: unknown command "nope"`},
		{[]string{"help", "nope"}, `capgate: unknown command "nope"`},
		{[]string{"keys"}, "capgate keys: missing command"},
		{[]string{"demo", "extra"}, `capgate demo: unexpected argument "extra"`},
		{[]string{"serve"}, "capgate serve: --config FILE is required"},
		{[]string{"keys", "hash"}, "capgate keys hash: missing KEY"},
		{[]string{"keys", "hash", "a", "b"}, `unexpected argument "b" after KEY`},
		{[]string{"keys", "generate", "--out", "k.json", "--alg", "RS256"}, `--alg "RS256": want EdDSA or ES256`},
		{[]string{"revoke", "--admin", "ftp://x", "--principal", "p"}, "want the admin listener as http://HOST:PORT"},
		{[]string{"bench", "--conns", "0"}, "want comma-separated positive integers"},
	}
	for _, tt := range tests {
		code, _, errOut := runCmd(t, tt.args...)
		if code != 2 || !strings.HasPrefix(errOut, "capgate") || !strings.Contains(errOut, tt.want) {
			t.Errorf("capgate %v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestKeysHashLiteral: a KEY that looks like a flag goes after "--".
func TestKeysHashLiteral(t *testing.T) {
	code, out, _ := runCmd(t, "keys", "hash", "--", "--help")
	if code != 0 || strings.TrimSpace(out) != authn.HashKey("--help") {
		t.Errorf("keys hash -- --help: exit %d, %q", code, out)
	}
}

func TestKeysGenerateMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	code, _, errOut := runCmd(t, "keys", "generate", "--out", filepath.Join(dir, "keys.json"))
	if code != 1 || !strings.Contains(errOut, "directory "+dir+":") || strings.Contains(errOut, ".tmp-") {
		t.Errorf("exit %d, stderr %q; want 1 naming the directory %s", code, errOut, dir)
	}
}

func TestAdminURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"127.0.0.1:9090", "http://127.0.0.1:9090"},
		{"http://127.0.0.1:9090/", "http://127.0.0.1:9090"},
		{"https://admin.example.com/gw", "https://admin.example.com/gw"},
		{"localhost:9090", "http://localhost:9090"},
	}
	for _, tt := range tests {
		if got, err := adminURL(tt.in); err != nil || got != tt.want {
			t.Errorf("adminURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestDemoServeAdminWhereRevokeLooks: demo --serve without --admin-addr
// puts the admin listener where revoke looks by default.
func TestDemoServeAdminWhereRevokeLooks(t *testing.T) {
	if got := (demoFlags{serve: true}).options(nil).AdminAddr; got != defaultAdminAddr {
		t.Errorf("demo --serve admin listener on %q, revoke looks at %q", got, defaultAdminAddr)
	}
	if got := (demoFlags{serve: true, adminAddr: "127.0.0.1:7000"}).options(nil).AdminAddr; got != "127.0.0.1:7000" {
		t.Errorf("--admin-addr ignored: %q", got)
	}
	if got := (demoFlags{}).options(nil).AdminAddr; got != "127.0.0.1:0" {
		t.Errorf("the walkthrough's admin listener should take a free port, got %q", got)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCmd(t, "version")
	if code != 0 || !strings.HasPrefix(out, "capgate ") || !strings.Contains(out, " revision ") {
		t.Errorf("version: exit %d, %q", code, out)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-24T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(bi), "capgate v1.2.3 revision abc123 (2026-11-24T10:00:00Z, modified) go1.26.0"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
}

func TestPlural(t *testing.T) {
	var out bytes.Buffer
	for _, n := range []int{0, 1, 2} {
		out.WriteString(plural(n, "event") + ";")
	}
	if got := out.String(); got != "0 events;1 event;2 events;" {
		t.Errorf("plural: %q", got)
	}
}

// TestRedisLogger: a go-redis log line becomes one structured record.
func TestRedisLogger(t *testing.T) {
	var buf bytes.Buffer
	l := redisLogger{slog.New(slog.NewJSONHandler(&buf, nil))}
	l.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %s", 5, "connection refused")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("not one JSON record: %v\n%s", err, buf.String())
	}
	if rec["level"] != "WARN" || rec["component"] != "go-redis" ||
		rec["msg"] != "redis client: connection pool: failed to dial after 5 attempts: connection refused" {
		t.Errorf("record = %v", rec)
	}
}

// TestDemoRedisDown: with no Redis at the address, the error names the
// address and the root cause.
func TestDemoRedisDown(t *testing.T) {
	code, _, errOut := runCmd(t, "demo", "--redis", "redis://127.0.0.1:1/0")
	if code != 1 || !strings.Contains(errOut, "redis at 127.0.0.1:1") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("exit %d, stderr %q; want 1 naming the address and the cause", code, errOut)
	}
	code, _, errOut = runCmd(t, "demo", "--redis", "http://127.0.0.1:1/0")
	if code != 1 || strings.Contains(errOut, "redis: redis:") || !strings.Contains(errOut, "invalid URL scheme") {
		t.Errorf("exit %d, stderr %q; want 1 and no stutter", code, errOut)
	}
}

// TestServeMissingPolicy: the error names the file once, without a
// repeated "policy: policy:" prefix.
func TestServeMissingPolicy(t *testing.T) {
	data, err := os.ReadFile("../../deploy/examples/quickstart/capgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := regexp.MustCompile(`(?m)^  file: .*$`).ReplaceAll(data, []byte("  file: missing-policy.yaml"))
	path := filepath.Join(t.TempDir(), "capgate.yaml")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, "serve", "--config", path)
	if code != 1 || !strings.Contains(errOut, "missing-policy.yaml") || strings.Contains(errOut, "policy: policy:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestKeysGenerateIfAbsent: --if-absent creates the file once, then
// leaves it alone and succeeds, for an init service run on every start.
func TestKeysGenerateIfAbsent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if code, _, errOut := runCmd(t, "keys", "generate", "--if-absent", "--out", path); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "keys", "generate", "--if-absent", "--out", path)
	after, _ := os.ReadFile(path)
	if code != 0 || !strings.Contains(out, "left as it is") || !bytes.Equal(before, after) {
		t.Errorf("second run: exit %d, %q %q; file changed: %v", code, out, errOut, !bytes.Equal(before, after))
	}
	if code, _, _ := runCmd(t, "keys", "generate", "--if-absent", "--rotate", "--out", path); code != 2 {
		t.Errorf("--if-absent with --rotate: exit %d, want 2", code)
	}
}
