package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	redis.SetLogger(redisLogger{slog.New(slog.NewJSONHandler(os.Stderr, nil))})
	os.Exit(run(ctx, os.Args[1:], env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		now: time.Now, loadCatalog: loadCatalog,
	}))
}

// env is what a command may touch of the process, so tests can run
// commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	// loadCatalog turns a gateway config path into the catalog a policy
	// is validated against.
	loadCatalog func(configPath string) (policy.Catalog, error)
}

const rootAbout = "capgate: a capability-token authorization gateway for AI agents"

// commands is the command tree.
func commands() *command {
	return &command{about: rootAbout, subs: []*command{
		{name: "serve", synopsis: []string{"--config FILE"}, about: serveAbout, run: runServe,
			summary: "serve the gateway (audit trail on stdout, logs on stderr)"},
		{name: "demo", synopsis: []string{"[--serve [--addr HOST:PORT] [--admin-addr HOST:PORT]]\n[--redis URL] [--keys FILE] [--audit FILE] [-v]"},
			about: demoAbout, run: runDemo, summary: "the quickstart world: a narrated walkthrough, or with --serve serve it"},
		{name: "policy", about: "capgate policy: grant policy files", subs: []*command{
			{name: "policy check", synopsis: []string{"FILE [--strict] [--config PATH]"}, about: policyCheckAbout,
				run: policyCheck, summary: "validate a grant policy against the agents, grants and hosts of a gateway config"},
			{name: "policy test", synopsis: []string{"FILE TESTS [--config PATH]"}, about: policyTestAbout,
				run: policyTest, summary: "run a policy's table of test cases"},
			{name: "policy explain", synopsis: policyExplainSynopsis, about: policyExplainAbout,
				run: policyExplain, summary: "explain, rule by rule, the decision on one request"},
			{name: "policy diff", synopsis: policyDiffSynopsis, about: policyDiffAbout,
				run: policyDiff, summary: "what a new policy allows or refuses that the old one does not"},
			{name: "policy replay", synopsis: policyReplaySynopsis, about: policyReplayAbout,
				run: policyReplay, summary: "re-decide an audit trail's recorded decisions under a new policy"},
		}},
		{name: "keys", about: "capgate keys: capability key files and dev key hashes", subs: []*command{
			{name: "keys generate", synopsis: []string{"--out FILE [--alg EdDSA|ES256] [--rotate [--activate] | --if-absent]"},
				about: keysGenerateAbout, run: keysGenerate, summary: "write the capability signing and sealing keys, or publish new ones"},
			{name: "keys activate", synopsis: []string{"--keys FILE [--] KID"}, about: keysActivateAbout, dashArg: "KID",
				run: keysActivate, summary: "staged rotation: make a published key sign"},
			{name: "keys prune", synopsis: []string{"--keys FILE --older-than DURATION [--] [KID...]"}, about: keysPruneAbout, dashArg: "KID",
				run: keysPrune, summary: "staged rotation: drop keys retired longer ago than DURATION"},
			{name: "keys hash", synopsis: []string{"[--] KEY"}, about: keysHashAbout, dashArg: "KEY",
				run: keysHash, summary: "the config hash of a dev API key"},
		}},
		{name: "token", about: "capgate token: capability tokens", subs: []*command{
			{name: "token inspect", synopsis: []string{"[--keys FILE [--issuer ISS] [--audience AUD] [--unseal]] [--json] [TOKEN|-]"},
				about: tokenAbout, run: tokenInspect, summary: "show a capability token's claims"},
		}},
		{name: "audit", about: "capgate audit: the audit trail", subs: []*command{
			{name: "audit verify", synopsis: auditSynopsis, about: auditAbout, run: runAuditVerify,
				summary: "check the audit trail's hash chains (and checkpoint signatures with keys)"},
			{name: "audit export", synopsis: auditExportSynopsis, about: auditExportAbout, run: runAuditExport,
				summary: "render the audit trail as OCSF or CEF for a SIEM"},
		}},
		{name: "revoke", synopsis: []string{"[--admin URL] [--key KEY] [--json]\n(--capability ID | --revocation ID | --principal P [--before T])"},
			about: revokeAbout, run: runRevoke, summary: "revoke through a gateway's admin API"},
		{name: "freeze", synopsis: freezeSynopsis, about: freezeAbout, run: runFreeze("freeze"),
			summary: "emergency stop: revoke everything of an agent or principal and refuse it until unfreeze"},
		{name: "unfreeze", synopsis: freezeSynopsis, about: freezeAbout, run: runFreeze("unfreeze"),
			summary: "lift a freeze"},
		{name: "frozen", synopsis: []string{"[--admin URL] [--key KEY] [--json]"}, about: freezeAbout, run: runFrozen,
			summary: "list what is frozen, by whom and why"},
		{name: "approvals", about: "capgate approvals: capability requests waiting for a human decision", subs: []*command{
			{name: "approvals list", synopsis: []string{"[--admin URL] [--key KEY] [--status S] [--principal P] [--json]"},
				about: approvalsAbout, run: approvalsList, summary: "list capability requests waiting for a human decision"},
			{name: "approvals approve", synopsis: []string{"ID --reason TEXT [--action-hash HASH] [--admin URL] [--key KEY] [--json]"},
				about: approvalsAbout, run: approvalsDecide("approve"), summary: "approve a waiting request, as the approver the key names"},
			{name: "approvals deny", synopsis: []string{"ID --reason TEXT [--action-hash HASH] [--admin URL] [--key KEY] [--json]"},
				about: approvalsAbout, run: approvalsDecide("deny"), summary: "deny a waiting request; the requester sees the reason"},
		}},
		{name: "bench", synopsis: benchSynopsis, about: benchUsage, run: runBench,
			summary: "load: capgate against a plain reverse proxy"},
		{name: "example-agents", synopsis: []string{"[--documents ADDR] [--summarizer ADDR] [--lab ADDR] [--notes ADDR]\n[--files ADDR] [--gateway URL]"},
			about: agentsAbout, run: runExampleAgents, summary: "serve the quickstart example agents and lab host"},
		{name: "version", synopsis: []string{""}, about: versionAbout, run: runVersion,
			summary: "the module version and VCS revision of this binary"},
	}}
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, e env) int {
	return commands().dispatch(ctx, args, e)
}
