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

const usage = `capgate: a capability-token authorization gateway for AI agents

Usage:
  capgate serve --config FILE
      serve the gateway (audit trail on stdout, logs on stderr)
  capgate demo [--serve [--addr HOST:PORT] [--admin-addr HOST:PORT]] [--redis URL] [--keys FILE] [--audit FILE] [-v]
      the quickstart world: a narrated walkthrough, or with --serve serve it
      (admin API on ` + defaultAdminAddr + ` unless --admin-addr)
  capgate policy check|test|explain ...
      work with grant policy files
  capgate keys generate --out FILE [--alg EdDSA|ES256] [--rotate [--activate] | --if-absent]
      write the capability signing and sealing keys, or publish new ones
  capgate keys activate --keys FILE [--] KID | keys prune --keys FILE --older-than D
      staged rotation: make a published key sign, then drop retired keys
  capgate keys hash KEY
      the config hash of a dev API key
  capgate token inspect [--keys FILE [--issuer ISS] [--audience AUD] [--unseal]] [TOKEN|-]
      show a capability token's claims
  capgate audit verify [--partial] [--verbose] [FILE|-] | --redis URL --stream KEY
      check the audit trail's hash chain
  capgate revoke [--admin URL] [--key KEY] (--capability ID | --revocation ID | --principal P [--before T])
      revoke through a gateway's admin API (default http://` + defaultAdminAddr + `, key $CAPGATE_ADMIN_KEY)
  capgate approvals list | approve ID --reason TEXT | deny ID --reason TEXT
      decide capability requests waiting for human approval, through the admin API
  capgate bench [--quick] [--json] [--duration D] [--conns 1,64] [--variants memory,redis,synced] ...
      load: capgate against a plain reverse proxy
  capgate example-agents [--documents ADDR] [--summarizer ADDR] [--lab ADDR] [--gateway URL]
      serve the quickstart example agents and lab host
  capgate version
      the module version and VCS revision of this binary

Every command takes -h, --help or help for its own usage.
`

// commands is the command tree.
func commands() *command {
	return &command{usage: usage, subs: []*command{
		{name: "serve", usage: serveUsage, run: runServe},
		{name: "demo", usage: demoUsage, run: runDemo},
		{name: "policy", usage: policyUsage, subs: []*command{
			{name: "policy check", usage: policyUsage, run: policyCheck},
			{name: "policy test", usage: policyUsage, run: policyTest},
			{name: "policy explain", usage: policyUsage, run: policyExplain},
		}},
		{name: "keys", usage: keysUsage, subs: []*command{
			{name: "keys generate", usage: keysUsage, run: keysGenerate},
			{name: "keys activate", usage: keysUsage, run: keysActivate},
			{name: "keys prune", usage: keysUsage, run: keysPrune},
			{name: "keys hash", usage: keysUsage, run: keysHash},
		}},
		{name: "token", usage: tokenUsage, subs: []*command{
			{name: "token inspect", usage: tokenUsage, run: tokenInspect},
		}},
		{name: "audit", usage: auditUsage, subs: []*command{
			{name: "audit verify", usage: auditUsage, run: runAuditVerify},
		}},
		{name: "revoke", usage: revokeUsage, run: runRevoke},
		{name: "approvals", usage: approvalsUsage, subs: []*command{
			{name: "approvals list", usage: approvalsUsage, run: approvalsList},
			{name: "approvals approve", usage: approvalsUsage, run: approvalsDecide("approve")},
			{name: "approvals deny", usage: approvalsUsage, run: approvalsDecide("deny")},
		}},
		{name: "bench", usage: benchUsage, run: runBench},
		{name: "example-agents", usage: agentsUsage, run: runExampleAgents},
		{name: "version", usage: versionUsage, run: runVersion},
	}}
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, e env) int {
	return commands().dispatch(ctx, args, e)
}
