package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// redisLogger routes go-redis's own log lines (dial failures in its
// connection pool, for example) through a structured logger, so that they
// are JSON lines beside capgate's instead of free text on stderr.
//
// go-redis has one process-wide logger (redis.SetLogger) and no per-client
// one, so main installs this once, at the edge of the process, where the
// process's other singletons (signals, exit status) are handled too.
type redisLogger struct{ log *slog.Logger }

// Printf implements go-redis's logging interface.
func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	l.log.Log(ctx, slog.LevelWarn, "redis client: "+msg, "component", "go-redis")
}
