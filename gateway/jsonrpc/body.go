package jsonrpc

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ReadBody reads a whole request body of at most lim.MaxBodyBytes bytes. It
// reads one byte more than the limit, so a body of exactly the limit is
// accepted and a longer one fails with ErrBodyTooLarge without being read
// further. A limit hit by http.MaxBytesReader upstream is ErrBodyTooLarge
// too. Other read errors are returned wrapped.
func ReadBody(r io.Reader, lim Limits) ([]byte, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(r, lim.MaxBodyBytes+1))
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, fmt.Errorf("%w: %w", ErrBodyTooLarge, err)
	}
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: reading body: %w", err)
	}
	if int64(len(body)) > lim.MaxBodyBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, lim.MaxBodyBytes)
	}
	return body, nil
}
