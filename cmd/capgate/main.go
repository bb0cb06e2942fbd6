package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
	}))
}

// env is what a command may touch of the process, so tests can run
// commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

const usage = `capgate: a capability-token authorization gateway for AI agents

Usage:
  capgate serve --config FILE                  serve the gateway
  capgate demo [--serve] [--addr HOST:PORT]    the quickstart world: walkthrough, or serve it
  capgate policy check|test|explain ...        work with grant policy files
  capgate keys generate --out FILE [--rotate]  capability signing and sealing keys
  capgate keys activate|prune --keys FILE      staged rotation: activate, then prune old keys
  capgate keys hash KEY                        the config hash of a dev API key
  capgate token inspect [TOKEN]                show a capability token's claims
  capgate audit verify [FILE|-] | --redis URL --stream KEY
                                               check the audit trail's hash chain
  capgate revoke --admin URL (--capability ID | --revocation ID | --principal P [--before T])
                                               revoke through a gateway's admin API
  capgate bench [--quick] [--json] [--conns 1,64] [--variants memory,redis,synced]
                                               load: capgate against a plain reverse proxy
  capgate example-agents [--documents ADDR] [--summarizer ADDR] [--lab ADDR]
                                               serve the quickstart example agents
`

func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	rest := args[1:]
	switch args[0] {
	case "serve":
		return runServe(ctx, rest, e)
	case "demo":
		return runDemo(ctx, rest, e)
	case "keys":
		return runKeysCommand(ctx, rest, e)
	case "bench":
		return runBench(ctx, rest, e.stdout, e.stderr, e.getenv)
	case "audit":
		return runAudit(ctx, rest, e.stdin, e.stdout, e.stderr, e.getenv)
	case "revoke":
		return runRevoke(ctx, rest, e)
	case "token":
		return runToken(ctx, rest, e.stdin, e.stdout, e.stderr)
	case "policy":
		return runPolicy(ctx, rest, e.stdout, e.stderr, loadCatalog)
	case "example-agents":
		return runExampleAgents(ctx, rest, e)
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usage)
		return 0
	default:
		fmt.Fprintf(e.stderr, "capgate: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
