package revocation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// outcome carries a call's answer across goroutines.
type outcome[T any] struct {
	val T
	err error
}

// call runs fn against Redis through the circuit breaker, bounded by the
// store's Timeout even when the client ignores context deadlines (go-redis
// does unless ContextTimeoutEnabled is set). fn runs on its own goroutine so
// that call can return at the deadline; fn must not share mutable state
// with the caller. Every error wraps ErrUnavailable.
func call[T any](parent context.Context, r *Redis, op string, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if err := r.usable(); err != nil {
		return zero, err
	}
	if err := parent.Err(); err != nil {
		return zero, fmt.Errorf("%w: %s: %w", ErrUnavailable, op, err)
	}
	probe, err := r.breaker.acquire()
	if err != nil {
		return zero, fmt.Errorf("%w: %s: %w", ErrUnavailable, op, err)
	}
	ctx, cancel := context.WithTimeout(parent, r.timeout)
	defer cancel()
	done := make(chan outcome[T], 1)
	go func() {
		v, err := fn(ctx)
		done <- outcome[T]{v, err}
	}()
	var out outcome[T]
	select {
	case out = <-done:
	case <-ctx.Done():
		out.err = ctx.Err()
	}
	// Redis answering with a value we refuse, or without the epoch marker,
	// is not Redis being down, and a caller that gave up is not Redis's
	// fault: none of them opens the breaker.
	lost := errors.Is(out.err, ErrStoreLost)
	healthy := out.err == nil || lost || errors.Is(out.err, ErrCorrupt) || parent.Err() != nil
	r.breaker.release(probe, healthy)
	if out.err == nil {
		return out.val, nil
	}
	level := slog.LevelWarn
	switch {
	case errors.Is(out.err, ErrCorrupt):
		level = slog.LevelError
	case lost: // logged once, when the loss is first seen
		level = slog.LevelDebug
	}
	r.log.Log(parent, level, "revocation: redis call failed", "op", op, "err", out.err)
	return zero, fmt.Errorf("%w: %s: %w", ErrUnavailable, op, out.err)
}
