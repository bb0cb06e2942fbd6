package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
)

// runServe is `capgate serve --config FILE`.
func runServe(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	path := fs.String("config", "", "gateway config file (YAML)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *path == "" || fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "usage: capgate serve --config FILE")
		return 2
	}
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return 1
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	gw, err := gateway.FromConfig(ctx, cfg, gateway.BuildOptions{Logger: logger, Getenv: e.getenv})
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return 1
	}
	if err := serveGateway(ctx, gw, cfg.Listen, logger); err != nil {
		fmt.Fprintln(e.stderr, err)
		return 1
	}
	return 0
}

// serveGateway listens on l.Addr and serves until ctx is done, then drains.
func serveGateway(ctx context.Context, gw *gateway.Gateway, l config.Listener, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("capgate: listen: %w", err)
	}
	logger.Info("capgate listening", "addr", ln.Addr().String())
	return gw.Serve(ctx, ln, gateway.NewServer(l, gw.Handler()))
}
