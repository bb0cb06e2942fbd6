package platform

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/capgate/capgate/gateway/metrics"
)

// TracerName is the instrumentation scope of the gateway's spans.
const TracerName = "github.com/capgate/capgate/gateway"

// Runtime is what every part of the gateway shares: built once, passed by
// value. The zero value is usable once WithDefaults has filled it.
type Runtime struct {
	// Now is the clock; nil means time.Now (after WithDefaults).
	Now func() time.Time
	// Logger receives operational events; nil discards them (after
	// WithDefaults).
	Logger *slog.Logger
	// Tracer records spans; nil records nothing (after WithDefaults, a
	// no-op tracer).
	Tracer trace.Tracer
	// Metrics receives observations; nil records nothing.
	Metrics *metrics.Metrics
	// Redis is the store shared by every replica; nil keeps each part's
	// state in memory.
	Redis *Redis
	// Getenv reads the secrets the config names by environment variable;
	// nil reads none, and a part that needs one refuses to start.
	Getenv func(string) string
	// ReadFile reads the secrets the config names by file; nil reads none.
	ReadFile func(string) ([]byte, error)
}

// Redis is the shared Redis store as every part takes it.
type Redis struct {
	// Client reaches Redis: a single node, Sentinel or Cluster.
	Client redis.UniversalClient
	// Prefix starts every key (the config's redis.prefix); each part
	// appends its own segment.
	Prefix string
	// Timeout bounds one call to Redis.
	Timeout time.Duration
}

// WithDefaults returns r with a nil clock set to time.Now, a nil logger
// to one that discards, and a nil tracer to a no-op tracer. Metrics,
// Redis, Getenv and ReadFile stay as they are: nil has a meaning there.
func (r Runtime) WithDefaults() Runtime {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.Tracer == nil {
		r.Tracer = noop.NewTracerProvider().Tracer(TracerName)
	}
	return r
}

// Secret reads a secret the config names by environment variable (env)
// or by file, whichever is set: a variable that is empty, or a file that
// cannot be read, is an error. A file's trailing newlines and spaces are
// not part of the secret.
func (r Runtime) Secret(env, file string) (string, error) {
	if env != "" {
		if r.Getenv == nil || r.Getenv(env) == "" {
			return "", fmt.Errorf("environment variable %s is empty", env)
		}
		return r.Getenv(env), nil
	}
	if r.ReadFile == nil {
		return "", errors.New("no file reader configured")
	}
	b, err := r.ReadFile(file)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimRight(b, "\r\n ")), nil
}
