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
// start from DefaultLimits.
type Limits struct {
	// MaxBodyBytes is the largest body accepted, in bytes.
	MaxBodyBytes int64
	// MaxBatch is the largest number of elements in a batch.
	MaxBatch int
	// MaxDepth is the deepest nesting of arrays and objects, counting the
	// outermost one: `{}` has depth 1, `[{}]` depth 2.
	MaxDepth int
}

// DefaultLimits returns the limits capgate runs with unless configured
// otherwise: 1 MiB bodies, batches of 32, nesting depth 64.
func DefaultLimits() Limits {
	return Limits{MaxBodyBytes: 1 << 20, MaxBatch: 32, MaxDepth: 64}
}

// Validate reports every problem with l, each wrapping ErrInvalidLimits,
// joined with errors.Join. It returns nil when l is usable.
func (l Limits) Validate() error {
	var errs []error
	if l.MaxBodyBytes < MinBodyBytes || l.MaxBodyBytes > MaxBodyBytesCeiling {
		errs = append(errs, fmt.Errorf("%w: MaxBodyBytes %d is outside %d..%d",
			ErrInvalidLimits, l.MaxBodyBytes, MinBodyBytes, MaxBodyBytesCeiling))
	}
	if l.MaxBatch < 1 || l.MaxBatch > MaxBatchCeiling {
		errs = append(errs, fmt.Errorf("%w: MaxBatch %d is outside 1..%d", ErrInvalidLimits, l.MaxBatch, MaxBatchCeiling))
	}
	// Depth 3 is the least that holds a batch of requests with params.
	if l.MaxDepth < 3 || l.MaxDepth > MaxDepthCeiling {
		errs = append(errs, fmt.Errorf("%w: MaxDepth %d is outside 3..%d", ErrInvalidLimits, l.MaxDepth, MaxDepthCeiling))
	}
	return errors.Join(errs...)
}
