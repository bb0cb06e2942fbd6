package jsonrpc

import (
	"bytes"
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
	return ReadBodyLen(r, -1, lim)
}

// maxBodyHint is the most ReadBodyLen reserves on an announced length
// before the bytes arrive; larger bodies grow as they are read.
const maxBodyHint = 64 << 10

// ReadBodyLen is ReadBody for a body announced as length bytes (-1 when
// unknown, as http.Request.ContentLength says): a length within the limit
// sizes the buffer, so the body is read into one allocation instead of a
// growing series. The announcement is only a hint: the limit is enforced
// on what is read, and a body longer or shorter than announced is read
// as it is.
func ReadBodyLen(r io.Reader, length int64, lim Limits) ([]byte, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if length >= 0 && length <= lim.MaxBodyBytes {
		// Capped: the hint arrives with the headers, before any of the body,
		// and must not let a caller reserve a megabyte per connection by
		// announcing it and sending nothing.
		buf.Grow(int(min(length, maxBodyHint)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(r, lim.MaxBodyBytes+1))
	body := buf.Bytes()
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
