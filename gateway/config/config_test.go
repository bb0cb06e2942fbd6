package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestLoadQuickstart(t *testing.T) {
	cfg, err := Load(filepath.Join("..", "..", "deploy", "examples", "quickstart", "capgate.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := len(cfg.Agents); got != 3 {
		t.Fatalf("agents = %d, want 3", got)
	}
	if m := cfg.Agents[2].Messages; cfg.Agents[2].Name != "notes" || m == nil || !m.RequireCapability || m.Operation != "read" || !m.AgentEnforcesOperations {
		t.Errorf("notes agent's gated messaging not decoded: %+v", cfg.Agents[2])
	}
	if cfg.Agents[0].Skills["retrieve_document"] != "retrieve" {
		t.Errorf("skills not decoded: %v", cfg.Agents[0].Skills)
	}
	if cfg.Listen.ReadHeaderTimeout.D() != 5*time.Second {
		t.Errorf("read_header_timeout = %v", cfg.Listen.ReadHeaderTimeout.D())
	}
	if !filepath.IsAbs(cfg.Policy.File) && !strings.Contains(cfg.Policy.File, "quickstart") {
		t.Errorf("policy path not resolved against the config folder: %q", cfg.Policy.File)
	}
}

// TestParseReportsEveryProblem checks the whole problem list against a
// golden file: every unknown key and every invalid value, each with its
// place in the file, in one error.
func TestParseReportsEveryProblem(t *testing.T) {
	data, err := os.ReadFile("testdata/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(data, "bad.yaml")
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	checkGolden(t, "testdata/bad.golden", err.Error()+"\n")
}

func TestParse(t *testing.T) {
	const base = `
listen: {addr: "127.0.0.1:0"}
public_url: http://127.0.0.1:8080
agents: [{name: a, url: "http://127.0.0.1:1/"}]
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:a@example.com"}]
policy: {file: p.yaml}
`
	tests := []struct {
		name    string
		doc     string
		wantErr error
		want    string
	}{
		{"minimal", base, nil, ""},
		{"empty", "", ErrInvalid, "empty document"},
		{"not yaml", "listen: [", ErrInvalid, ""},
		{"unknown key", base + "extra: 1\n", ErrInvalid, `extra: unknown key`},
		{"hs256 refused", base + "oidc: [{issuer: 'https://idp.example', audience: capgate, algorithms: [HS256]}]\n", ErrInvalid, `oidc[0].algorithms[0]: "HS256" is refused`},
		{"http issuer off loopback", base + "oidc: [{issuer: 'http://idp.example', audience: capgate}]\n", ErrInvalid, "must use https"},
		{"http issuer on loopback", base + "oidc: [{issuer: 'http://127.0.0.1:5556', audience: capgate}]\n", nil, ""},
		{"no audience", base + "oidc: [{issuer: 'https://idp.example'}]\n", ErrInvalid, "audience: is required"},
		{"bad duration", strings.Replace(base, `addr: "127.0.0.1:0"`, `addr: "127.0.0.1:0", idle_timeout: forever`, 1), ErrInvalid, `"forever" is not a duration`},
		{"cors origins", base + "cors: {allowed_origins: ['https://app.example'], allow_credentials: true, max_age: 10m}\n", nil, ""},
		{"console public url", base + "admin: {addr: '0.0.0.0:9090'}\nadmin_access: {groups: [ops]}\nconsole: {public_url: 'https://capgate-admin.example.com'}\n", nil, ""},
		{"console public url on loopback http", base + "admin: {addr: '0.0.0.0:9090'}\nadmin_access: {groups: [ops]}\nconsole: {public_url: 'http://localhost:9090'}\n", nil, ""},
		{"console trusted proxies", base + "admin: {addr: '127.0.0.1:9090'}\nadmin_access: {groups: [ops]}\nconsole: {trusted_proxies: ['10.0.0.0/8', '192.0.2.10', '::1']}\n", nil, ""},
		{"console trusted proxy not an address", base + "admin: {addr: '127.0.0.1:9090'}\nadmin_access: {groups: [ops]}\nconsole: {trusted_proxies: ['proxy.example.com']}\n", ErrInvalid, "console.trusted_proxies[0]: \"proxy.example.com\" is neither an IP address nor a CIDR prefix"},
		{"console public url in clear", base + "admin: {addr: '0.0.0.0:9090'}\nadmin_access: {groups: [ops]}\nconsole: {public_url: 'http://capgate-admin.example.com'}\n", ErrInvalid, "console.public_url: \"http://capgate-admin.example.com\" must use https"},
		{"console redirect url in clear", base + "oidc: [{issuer: 'https://idp.example', audience: capgate}]\nadmin: {addr: '0.0.0.0:9090'}\nadmin_access: {groups: [ops]}\nconsole: {oidc: {issuer: 'https://idp.example', client_id: c, redirect_url: 'http://admin.example/console/callback'}}\n", ErrInvalid, "console.oidc.redirect_url"},
		{"pending bound", base + "approvals: {max_pending_per_principal: 5}\n", nil, ""},
		{"negative pending bound", base + "approvals: {max_pending_per_principal: -1}\n", ErrInvalid, "approvals.max_pending_per_principal: must be 0 (the default, 20) to 1000"},
		{"slack webhook", base + "approvals: {webhook: {url: 'https://hooks.slack.com/services/T/B/X', format: slack}}\n", nil, ""},
		{"unknown webhook format", base + "approvals: {webhook: {url: 'https://h.example.com/x', format: discord, secret_env: HOOK}}\n", ErrInvalid,
			"approvals.webhook.format: \"discord\": must be one of generic, slack, teams (empty means generic)"},
		{"generic webhook without a secret", base + "approvals: {webhook: {url: 'https://h.example.com/x'}}\n", ErrInvalid,
			"approvals.webhook.secret_env: is required by the generic format"},
		{"rate limits", base + "rate_limits: {issue: {events: 10, period: 30s, burst: 5}, max_live_capabilities: 50, per_agent: true}\n", nil, ""},
		{"rate period too short", base + "rate_limits: {invoke: {events: 10, period: 10ms}}\n", ErrInvalid, "rate_limits.invoke.period: 10ms is shorter than 1s"},
		{"cors star without credentials", base + "cors: {allowed_origins: ['*']}\n", nil, ""},
		{"cors star with credentials", base + "cors: {allowed_origins: ['*'], allow_credentials: true}\n", ErrInvalid, "cannot be combined with allow_credentials"},
		{"cors origin with path", base + "cors: {allowed_origins: ['https://app.example/page']}\n", ErrInvalid, "invalid origin"},
		{"a2e host requiring credentials", base + "a2e_hosts: [{name: lab, url: 'http://127.0.0.1:2/', capabilities: [tools], auth_token_env: LAB, require_credentials: true}]\n", nil, ""},
		{"limits checked by jsonrpc", base + "limits: {max_depth: 2000, max_batch: -1}\n", ErrInvalid, "limits.max_depth: 2000 is outside 3..1000"},
		{"limits keys are jsonrpc's", base + "limits: {max_body_bytes: 4096, upstream_timeout: 5s}\n", nil, ""},
		{"task ownership off", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", task_ownership: off`, 1), nil, ""},
		{"task ownership unknown", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", task_ownership: "lax"`, 1), ErrInvalid, "task_ownership: \"lax\" must be enforce, allow_unknown or off"},
		{"task bounds negative", base + "limits: {max_tasks: -1}\n", ErrInvalid, "limits.max_tasks"},
		{"push relay", base + "push_relay: {allow_private_targets: true, max_attempts: 3, backoff: 1s}\n", nil, ""},
		{"push relay all", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", push_relay: all`, 1) + "push_relay: {}\n", nil, ""},
		{"push relay all without the section", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", push_relay: all`, 1), ErrInvalid, "agents[0].push_relay: all needs the push_relay section"},
		{"push relay mode unknown", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", push_relay: some`, 1), ErrInvalid, `agents[0].push_relay: "some" must be scoped, all or off`},
		{"push relay attempts", base + "push_relay: {max_attempts: 11}\n", ErrInvalid, "push_relay.max_attempts: must be 1 to 10"},
		{"push relay url", base + "push_relay: {url: 'ftp://gw.example'}\n", ErrInvalid, "push_relay.url"},
		{"push relay queue", base + "push_relay: {queue_size: -1}\n", ErrInvalid, "push_relay.queue_size"},
		{"push relay unknown key", base + "push_relay: {allow_private: true}\n", ErrInvalid, "unknown key"},
		{"push relay per principal", base + "push_relay: {max_configs: 500, max_configs_per_principal: 500}\n", nil, ""},
		{"push relay per principal negative", base + "push_relay: {max_configs_per_principal: -1}\n", ErrInvalid, "push_relay.max_configs_per_principal: must be 1 to max_configs (100000)"},
		{"push relay per principal above the bound", base + "push_relay: {max_configs: 10, max_configs_per_principal: 11}\n", ErrInvalid, "push_relay.max_configs_per_principal: must be 1 to max_configs (10)"},
		{"push relay per principal not a number", base + "push_relay: {max_configs_per_principal: many}\n", ErrInvalid, "max_configs_per_principal"},
		{"answer limit", base + "limits: {max_answer_bytes: 67108864}\n", nil, ""},
		{"answer limit too small", base + "limits: {max_answer_bytes: 100}\n", ErrInvalid, "limits.max_answer_bytes: 100 must be 4096 (4 KiB) to"},
		{"answer limit negative", base + "limits: {max_answer_bytes: -1}\n", ErrInvalid, "limits.max_answer_bytes: -1 must be"},
		{"agent answer limit", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", max_answer_bytes: 1048576`, 1), nil, ""},
		{"agent answer limit too large", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", max_answer_bytes: 2147483648`, 1), ErrInvalid, "agents[0].max_answer_bytes: 2147483648 must be"},
		{"agent answer limit not a number", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", max_answer_bytes: 16MiB`, 1), ErrInvalid, "max_answer_bytes"},
		{"console with dev keys", base + "admin: {addr: '127.0.0.1:0'}\nadmin_access: {groups: [ops]}\nconsole: {approvers: {groups: [security]}}\n", nil, ""},
		{"console without admin listener", base + "console: {}\n", ErrInvalid, "console: needs the admin listener"},
		{"console oidc of an unknown issuer", base + "admin: {addr: '127.0.0.1:0'}\nadmin_access: {groups: [ops]}\nconsole: {oidc: {issuer: 'https://idp.example', client_id: c, redirect_url: 'http://127.0.0.1:9090/console/callback'}}\n", ErrInvalid, "console.oidc.issuer"},
		{"console oidc", base + "admin: {addr: '127.0.0.1:0'}\nadmin_access: {groups: [ops]}\noidc: [{issuer: 'https://idp.example', audience: c}]\nconsole: {oidc: {issuer: 'https://idp.example', client_id: c, redirect_url: 'http://127.0.0.1:9090/console/callback'}}\n", nil, ""},
		{"console approver not a principal", base + "admin: {addr: '127.0.0.1:0'}\nadmin_access: {groups: [ops]}\nconsole: {approvers: {principals: [carol]}}\n", ErrInvalid, "console.approvers.principals[0]"},
		{"secret env and file", strings.Replace(base, `url: "http://127.0.0.1:1/"`, `url: "http://127.0.0.1:1/", upstream_auth: {token_url: "https://idp.example/token", client_id: gw}`, 1), ErrInvalid, "exactly one of client_secret_env"},
		{"gated, every skill of the operation", strings.Replace(gated("read", ""), "notes.write: write", "notes.write: read", 1), nil, ""},
		{"gated, write covers no read", gated("write", ""), ErrInvalid, `operation "write" does not cover skill notes.read ("read")`},
		{"gated, star covers every skill", gated("*", ""), nil, ""},
		{"gated, narrower operation", gated("read", ""), ErrInvalid,
			`agents[0].messages.operation: operation "read" does not cover skill notes.write ("write")`},
		{"gated, narrower operation, agent enforces", gated("read", ", agent_enforces_operations: true"), nil, ""},
		{"gated, agent_enforces_operations not a bool", gated("read", ", agent_enforces_operations: maybe"), ErrInvalid, "agent_enforces_operations"},
		{"gated, case variant of the key", gated("read", ", Agent_Enforces_Operations: true"), ErrInvalid, "unknown key"},
		{"audit format ocsf", base + "audit: {format: ocsf}\n", nil, ""},
		{"audit format unknown", base + "audit: {format: leef}\n", ErrInvalid, `audit.format: "leef" is none of canonical, ocsf, cef`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.doc), "t.yaml")
			if err == nil && strings.Contains(tt.doc, "require_credentials: true") && !cfg.A2EHosts[0].RequireCredentials {
				t.Error("require_credentials not read")
			}
			if err == nil && strings.Contains(tt.doc, "task_ownership: off") && cfg.Agents[0].TaskOwnership != TaskOwnershipOff {
				t.Errorf("task_ownership read as %q", cfg.Agents[0].TaskOwnership)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil && tt.want != "" && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
			if err == nil && cfg.Limits.MaxBatch != 32 {
				t.Errorf("defaults not applied: %+v", cfg.Limits)
			}
			if err == nil && !strings.Contains(tt.doc, "max_answer_bytes") && cfg.Limits.MaxAnswerBytes != DefaultMaxAnswerBytes {
				t.Errorf("answer limit %d, want the default", cfg.Limits.MaxAnswerBytes)
			}
		})
	}
}

// gated is a config with one gated agent whose skills read and write,
// with messaging operation op and extra members of messages.
func gated(op, extra string) string {
	return `
listen: {addr: "127.0.0.1:0"}
public_url: http://127.0.0.1:8080
agents:
  - name: notes
    url: "http://127.0.0.1:1/"
    messages: {require_capability: true, operation: "` + op + `"` + extra + `}
    grants:
      - {id: "notes:read", operations: [read]}
      - {id: "notes:write", operations: [write]}
      - {id: "notes:all", operations: ["*"]}
    skills: {notes.read: read, notes.write: write}
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:a@example.com"}]
policy: {file: p.yaml}
`
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/bad.yaml", "../../deploy/examples/quickstart/capgate.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("listen: {addr: ':1'}\nagents: [{name: x}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.yaml")
		if err == nil && (cfg == nil || len(cfg.Agents) == 0) {
			t.Fatalf("accepted a config with no agents")
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %v does not wrap ErrInvalid", err)
		}
	})
}

// TestParseErrorKinds checks one golden file per kind of problem: unknown
// key, bad duration, wrong type, and YAML syntax errors placed at the
// construct that broke the document, each with line:col and key path.
func TestParseErrorKinds(t *testing.T) {
	inputs, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(data, filepath.Base(in))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			checkGolden(t, strings.TrimSuffix(in, ".yaml")+".golden", err.Error()+"\n")
		})
	}
}

func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("problems differ from %s (run with -update):\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestValidateJoinsEachPackage: Validate reports the problems of each
// package's part, each matching that package's sentinel.
func TestValidateJoinsEachPackage(t *testing.T) {
	cfg, err := Load(filepath.Join("..", "..", "deploy", "examples", "quickstart", "capgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the quickstart config: %v", err)
	}
	cfg.Limits.MaxBatch = -1
	cfg.DevKeys[0].Hash = "md5:x"
	cfg.PublicURL = "ftp://x"
	cfg.RateLimits.Issue.Events = -1
	err = cfg.Validate()
	for _, want := range []error{jsonrpc.ErrInvalidLimits, authn.ErrInvalidConfig, ratelimit.ErrInvalidConfig} {
		if !errors.Is(err, want) {
			t.Errorf("Validate() = %v, want it to match %v", err, want)
		}
	}
	if !strings.Contains(err.Error(), "public_url: ") {
		t.Errorf("Validate() = %v, want the public_url problem too", err)
	}
}
