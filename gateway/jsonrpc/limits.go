package jsonrpc

import (
	"errors"
	"fmt"
)

// Bounds that Limits.Validate enforces on every field.
const (
	// MaxDepthCeiling is the largest MaxDepth Validate accepts. The checker
	// recurses once per level, so the ceiling bounds its stack.
	MaxDepthCeiling = 1000
	// MaxBatchCeiling is the largest MaxBatch Validate accepts.
	MaxBatchCeiling = 10000
	// MaxBodyBytesCeiling is the largest MaxBodyBytes Validate accepts.
	MaxBodyBytesCeiling = 256 << 20
	// MinBodyBytes is the smallest MaxBodyBytes Validate accepts; a smaller
	// limit could not hold a useful request.
	MinBodyBytes = 64
)

// Limits bounds the cost of decoding one body. The zero value is invalid;
// start from DefaultLimits. The yaml names are the gateway config's keys
// under limits.
type Limits struct {
	// MaxBodyBytes is the largest body accepted, in bytes.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// MaxBatch is the largest number of elements in a batch.
	MaxBatch int `yaml:"max_batch"`
	// MaxDepth is the deepest nesting of arrays and objects, counting the
	// outermost one: `{}` has depth 1, `[{}]` depth 2.
	MaxDepth int `yaml:"max_depth"`
}

// DefaultLimits returns the limits capgate runs with unless configured
// otherwise: 1 MiB bodies, batches of 32, nesting depth 64.
func DefaultLimits() Limits {
	return Limits{MaxBodyBytes: 1 << 20, MaxBatch: 32, MaxDepth: 64}
}

// WithDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxBatch == 0 {
		l.MaxBatch = d.MaxBatch
	}
	if l.MaxDepth == 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// LimitError is one field of Limits out of its bounds; it matches
// ErrInvalidLimits.
type LimitError struct {
	// Field is the field's yaml name, e.g. max_batch.
	Field string
	// Msg explains the bounds.
	Msg string
}

func (e *LimitError) Error() string { return ErrInvalidLimits.Error() + ": " + e.Field + ": " + e.Msg }

// Is reports whether target is ErrInvalidLimits.
func (e *LimitError) Is(target error) bool { return target == ErrInvalidLimits }

// Validate reports every problem with l, each a *LimitError, joined with
// errors.Join. It returns nil when l is usable.
func (l Limits) Validate() error {
	var errs []error
	outside := func(field string, v, lo, hi int64) {
		if v < lo || v > hi {
			errs = append(errs, &LimitError{Field: field, Msg: fmt.Sprintf("%d is outside %d..%d", v, lo, hi)})
		}
	}
	outside("max_body_bytes", l.MaxBodyBytes, MinBodyBytes, MaxBodyBytesCeiling)
	outside("max_batch", int64(l.MaxBatch), 1, MaxBatchCeiling)
	// Depth 3 is the least that holds a batch of requests with params.
	outside("max_depth", int64(l.MaxDepth), 3, MaxDepthCeiling)
	return errors.Join(errs...)
}
