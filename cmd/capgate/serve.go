package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
)

const serveAbout = `Serves the gateway described by the YAML config FILE until interrupted:
the audit trail on standard output (unless the config names an audit
file), logs on standard error. SIGHUP reloads the grant policy; a broken
policy is refused and the last good one keeps serving.
`

// runServe is `capgate serve --config FILE`.
func runServe(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	path := fs.String("config", "", "the gateway config `FILE` (YAML)")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	if *path == "" {
		return usagef("--config FILE is required")
	}
	cfg, err := config.Load(*path)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	opts := gateway.BuildOptions{Runtime: platform.Runtime{Logger: logger, Getenv: e.getenv}}
	if cfg.Audit.File == "" {
		opts.AuditWriter = e.stdout // audit on stdout, logs on stderr
	}
	gw, err := gateway.FromConfig(ctx, cfg, opts)
	if err != nil {
		return err
	}
	defer gw.Close()
	stop := reloadOnHangup(ctx, gw, logger)
	defer stop()
	if cfg.Admin != nil {
		stopAdmin, err := serveAdmin(ctx, gw.Gateway, *cfg.Admin, logger)
		if err != nil {
			return err
		}
		defer stopAdmin()
	}
	return serveGateway(ctx, gw.Gateway, cfg.Listen, logger)
}

// reloadOnHangup reloads the policy on SIGHUP. A broken file is refused
// and the last good policy keeps serving.
func reloadOnHangup(ctx context.Context, gw *gateway.Built, logger *slog.Logger) func() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				if err := gw.Policy.Reload(ctx); err != nil {
					logger.Error("policy reload refused; the last good policy keeps serving", "error", err)
				} else {
					logger.Info("policy reloaded", "revision", gw.Policy.Current().Revision())
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(hup); close(done) }
}

// serveGateway listens on l.Addr and serves until ctx is done, then drains.
func serveGateway(ctx context.Context, gw *gateway.Gateway, l config.Listener, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	logger.Info("capgate listening", "addr", ln.Addr().String())
	return gw.Serve(ctx, ln, gateway.NewServer(l, gw.Handler()))
}

// serveAdmin serves the admin API on its own listener until the returned
// stop function is called.
func serveAdmin(ctx context.Context, gw *gateway.Gateway, l config.Listener, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return nil, fmt.Errorf("admin listen: %w", err)
	}
	srv := gateway.NewServer(l, gw.AdminHandler())
	logger.Info("capgate admin listening", "addr", ln.Addr().String())
	go func() { _ = srv.Serve(ln) }()
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.ShutdownTimeout.D())
		defer cancel()
		_ = srv.Shutdown(sctx)
	}, nil
}
