package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/files"
	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
)

const agentsAbout = `Serves the quickstart example agents, the lab A2E host and the files
MCP server on fixed addresses, for capgate serve --config deploy/examples/quickstart/capgate.yaml
and the compose file.

Environment: CAPGATE_SUMMARIZER_KEY is the summarizer's credential at the
gateway (e.g. summarizer-dev-key); CAPGATE_LAB_TOKEN is the lab host's
shared secret, the same the gateway is given.
`

// runExampleAgents is `capgate example-agents`: it serves the quickstart
// example agents, the lab A2E host and the files MCP server on fixed
// addresses, for `capgate serve --config
// deploy/examples/quickstart/capgate.yaml` and the compose file.
func runExampleAgents(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("example-agents", flag.ContinueOnError)
	docsAddr := fs.String("documents", "127.0.0.1:9101", "documents agent listen `ADDR`")
	sumAddr := fs.String("summarizer", "127.0.0.1:9102", "summarizer agent listen `ADDR`")
	labAddr := fs.String("lab", "127.0.0.1:9103", "lab A2E host listen `ADDR` (its secret is $CAPGATE_LAB_TOKEN)")
	notesAddr := fs.String("notes", "127.0.0.1:9104", "notes agent listen `ADDR`")
	filesAddr := fs.String("files", "127.0.0.1:9105", "files MCP server listen `ADDR`")
	gatewayURL := fs.String("gateway", "http://127.0.0.1:8080", "gateway base `URL` the summarizer calls")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	docs, err := documents.New(documents.Options{BaseURL: "http://" + *docsAddr, Logger: logger, Now: time.Now})
	if err != nil {
		return err
	}
	sum, err := summarizer.New(summarizer.Options{
		BaseURL: "http://" + *sumAddr, DocumentsURL: *gatewayURL + "/a2a/documents", FilesURL: *gatewayURL + "/mcp/files",
		Credential: e.getenv("CAPGATE_SUMMARIZER_KEY"), Logger: logger, Now: time.Now,
	})
	if err != nil {
		return fmt.Errorf("%w (set CAPGATE_SUMMARIZER_KEY to the summarizer's credential, e.g. summarizer-dev-key)", err)
	}
	labHost, err := lab.New(lab.Options{Logger: logger, Now: time.Now, AuthToken: e.getenv("CAPGATE_LAB_TOKEN")})
	if err != nil {
		return fmt.Errorf("%w (set CAPGATE_LAB_TOKEN to the lab host's shared secret, the same the gateway is given)", err)
	}
	defer labHost.Close()
	notesAgent, err := notes.New(notes.Options{BaseURL: "http://" + *notesAddr + "/", Logger: logger, Now: time.Now})
	if err != nil {
		return err
	}
	handlers := map[string]http.Handler{*docsAddr: docs.Handler(), *sumAddr: sum.Handler(), *labAddr: labHost.Handler(), *notesAddr: notesAgent,
		*filesAddr: files.New(files.Options{Logger: logger, Now: time.Now}).Handler()}
	errc := make(chan error, len(handlers))
	for addr, h := range handlers {
		go func() { errc <- listenAndServe(ctx, addr, h) }()
	}
	logger.Info("example agents serving", "documents", *docsAddr, "summarizer", *sumAddr, "lab", *labAddr, "notes", *notesAddr, "files", *filesAddr)
	errs := make([]error, len(handlers))
	for i := range errs {
		errs[i] = <-errc
	}
	return errors.Join(errs...)
}

func listenAndServe(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
