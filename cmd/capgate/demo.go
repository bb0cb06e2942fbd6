package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// runDemo is `capgate demo`: with --serve it serves the quickstart world
// until interrupted; without, it runs the narrated walkthrough against a
// world on a free loopback port and exits 0 only if every step behaved.
func runDemo(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	serve := fs.Bool("serve", false, "serve the quickstart world until interrupted")
	addr := fs.String("addr", "127.0.0.1:8080", "gateway listen address with --serve")
	verbose := fs.Bool("v", false, "log gateway events to stderr")
	adminAddr := fs.String("admin-addr", "127.0.0.1:0", "admin listener address with --serve")
	redisURL := fs.String("redis", "", "share state through this Redis (redis://host:port/db): run several --serve processes as replicas")
	keys := fs.String("keys", "", "capability key file shared by replicas (capgate keys generate --out FILE)")
	auditFile := fs.String("audit", "", "append the audit trail to this file (check it with capgate audit verify)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 2
	}
	logger := slog.New(slog.DiscardHandler)
	if *serve || *verbose {
		logger = slog.New(slog.NewTextHandler(e.stderr, nil))
	}
	listen := "127.0.0.1:0"
	if *serve {
		listen = *addr
	}
	opts := quickstart.Options{Addr: listen, Logger: logger, AdminAddr: *adminAddr, RedisURL: *redisURL, KeysFile: *keys}
	if *auditFile != "" {
		f, err := os.OpenFile(*auditFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return 1
		}
		defer f.Close()
		opts.AuditWriter = f
	}
	w, err := quickstart.Start(ctx, opts)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return 1
	}
	defer w.Close()
	if *serve {
		fmt.Fprintf(e.stdout, "capgate quickstart world serving at %s (Ctrl-C to stop)\n", w.URL)
		fmt.Fprintf(e.stdout, "admin API at %s (Bearer %s)\n", w.AdminURL, quickstart.AdminKey)
		fmt.Fprintf(e.stdout, "dev keys: %s, %s, %s, %s\n", quickstart.AliceKey, quickstart.BobKey, quickstart.CarolKey, quickstart.SummarizerKey)
		<-ctx.Done()
		return 0
	}
	if err := w.Walkthrough(ctx, e.stdout); err != nil {
		fmt.Fprintln(e.stderr, err)
		return 1
	}
	return 0
}
