package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// defaultAdminAddr is where `demo --serve` puts the admin listener and
// where `revoke` looks for it, unless told otherwise.
const defaultAdminAddr = "127.0.0.1:9090"

const demoAbout = `Without --serve, runs the narrated walkthrough against the quickstart world
on free loopback ports and exits 0 only if every step behaved as expected.
With --serve, serves the quickstart world until interrupted, and prints
the URL of everything it serves.
`

// demoFlags are the parsed flags of `capgate demo`.
type demoFlags struct {
	serve, verbose                            bool
	addr, adminAddr, redisURL, keys, auditOut string
}

// runDemo is `capgate demo`: with --serve it serves the quickstart world
// until interrupted; without, it runs the narrated walkthrough against a
// world on a free loopback port and exits 0 only if every step behaved.
func runDemo(ctx context.Context, args []string, e env) error {
	var f demoFlags
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.BoolVar(&f.serve, "serve", false, "serve the world instead of walking through it")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "with --serve, the gateway's `HOST:PORT` (A2A, A2E, metrics)")
	fs.BoolVar(&f.verbose, "v", false, "log gateway events to standard error")
	fs.StringVar(&f.adminAddr, "admin-addr", "", "with --serve, the admin listener's `HOST:PORT` (admin API, console; "+
		"default "+defaultAdminAddr+", where capgate revoke looks unless given --admin)")
	fs.StringVar(&f.redisURL, "redis", "", "share state through the Redis at `URL` (redis://host:port/db), to run several --serve processes as replicas")
	fs.StringVar(&f.keys, "keys", "", "capability key `FILE` shared by replicas (capgate keys generate --out FILE)")
	fs.StringVar(&f.auditOut, "audit", "", "append the audit trail to `FILE` (check it with capgate audit verify)")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	logger := slog.New(slog.DiscardHandler)
	if f.serve || f.verbose {
		logger = slog.New(slog.NewTextHandler(e.stderr, nil))
	}
	opts := f.options(logger)
	cleanup, err := f.auditFile()
	if err != nil {
		return err
	}
	defer cleanup()
	opts.AuditFile = f.auditOut
	w, err := quickstart.Start(ctx, opts)
	if err != nil {
		return portTaken(err, []demoListener{
			{opts.Addr, "--addr", "gateway (A2A, A2E, metrics)"},
			{opts.AdminAddr, "--admin-addr", "admin listener (admin API, console)"},
		})
	}
	defer w.Close()
	if !f.serve {
		return w.Walkthrough(ctx, e.stdout)
	}
	writeBanner(e.stdout, w)
	<-ctx.Done()
	return nil
}

// options are the quickstart world's options: free loopback ports for the
// walkthrough; with --serve, --addr and the admin listener where revoke
// looks for it unless --admin-addr says otherwise.
func (f demoFlags) options(logger *slog.Logger) quickstart.Options {
	opts := quickstart.Options{Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", Logger: logger, RedisURL: f.redisURL, KeysFile: f.keys}
	if f.serve {
		opts.Addr, opts.AdminAddr = f.addr, defaultAdminAddr
	}
	if f.adminAddr != "" {
		opts.AdminAddr = f.adminAddr
	}
	return opts
}

// auditFile makes sure a served world keeps its audit trail in a file,
// which the console's audit page reads: --audit FILE, or else a file in a
// temporary directory that cleanup removes. The walkthrough keeps one
// only when asked.
func (f *demoFlags) auditFile() (cleanup func(), err error) {
	if !f.serve || f.auditOut != "" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "capgate-demo-")
	if err != nil {
		return nil, err
	}
	f.auditOut = filepath.Join(dir, "audit.jsonl")
	return func() { os.RemoveAll(dir) }, nil
}
