package audit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/capgate/capgate/gateway/audit/siem"
	"github.com/capgate/capgate/gateway/platform"
)

// OpenOptions say where the gateway's audit trail goes.
type OpenOptions struct {
	// Writer receives the trail; nil means File, or nowhere when File is
	// empty too.
	Writer io.Writer
	// File is opened for appending (created 0600) when Writer is nil.
	File string
	// Chain names this replica's chain; empty means the host name and a
	// random suffix.
	Chain string
	// Checkpoints sign the chain head at intervals (see Checkpoints); none
	// without a Signer.
	Checkpoints Checkpoints
	// Runtime's Redis, when set, also receives every event on the
	// bounded stream Stream (empty meaning the Redis prefix followed by
	// "audit"; at most StreamMaxLen entries, 0 meaning
	// DefaultStreamMaxLen), each call bounded by the Redis timeout, so
	// that events outlive the replica. Stream options (a drop or error
	// hook) apply. Its clock stamps the events; its logger receives the
	// trail's own diagnostics.
	platform.Runtime
	Stream        string
	StreamMaxLen  int64
	StreamOptions []StreamOption
	// Format renders every event for the file and the stream: canonical
	// ("" too), ocsf or cef (see package siem). The chain is over the
	// canonical events whatever the format; Version is capgate's, named
	// in every rendered record.
	Format  siem.Format
	Version string
}

// Open returns the audit logger o describes: hash-chained JSON lines to
// the writer and, with Redis, to the stream. close flushes and stops
// everything Open started, the handler first and the file last; it is
// never nil.
func Open(o OpenOptions) (log *slog.Logger, close func() error, err error) {
	var closers []func() error
	close = func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	r, err := formatRenderer(o)
	if err != nil {
		return nil, nil, err
	}
	w := o.Writer
	if w == nil && o.File != "" {
		f, err := os.OpenFile(o.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("audit file: %w", err)
		}
		closers, w = append(closers, f.Close), f
	}
	if w == nil {
		w = io.Discard
	}
	if r != nil {
		w = formatWriter{w: w, r: r, log: logOrDiscard(o.Logger)}
	}
	if o.Chain == "" {
		o.Chain = replicaChain()
	}
	opts := Options{Chain: o.Chain, Now: o.Now, Logger: o.Logger}
	if cp := o.Checkpoints; cp.Signer != nil {
		opts.Checkpoints = &cp
	}
	if o.Redis != nil {
		if o.StreamMaxLen == 0 {
			o.StreamMaxLen = DefaultStreamMaxLen
		}
		if o.Stream == "" {
			o.Stream = o.Redis.Prefix + "audit"
		}
		s := NewRedisStream(o.Redis.Client, o.Stream, o.StreamMaxLen, o.Redis.Timeout, append([]StreamOption{WithLogger(o.Logger)}, o.StreamOptions...)...)
		closers, opts.Stream = append(closers, s.Close), s
		if r != nil {
			opts.Stream = formatSink{StreamSink: s, r: r, log: logOrDiscard(o.Logger)}
		}
	}
	h := NewHandler(w, opts)
	closers = append(closers, h.Close)
	return slog.New(h), close, nil
}

// formatRenderer is the renderer of o's format, nil for canonical.
func formatRenderer(o OpenOptions) (*siem.Renderer, error) {
	f, err := siem.ParseFormat(string(o.Format))
	if err != nil {
		return nil, fmt.Errorf("audit format: %w", err)
	}
	if f == siem.Canonical {
		return nil, nil
	}
	return siem.NewRenderer(f, o.Version)
}

func logOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// replicaChain names a chain after this host, with a random suffix so
// that two processes on one host keep apart.
func replicaChain() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	return host + "-" + hex.EncodeToString(b[:])
}
