package answer

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The unary answer as modifyAnswer holds it: read in one allocation when
// the upstream says how long it is, and given back to the proxy with its
// length.

// isEventStream reports whether a Content-Type is text/event-stream, as
// mime.ParseMediaType reads it, without parsing the many that cannot be.
func isEventStream(contentType string) bool {
	if !strings.Contains(strings.ToLower(contentType), "event-stream") {
		return false
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}

// readAnswer reads r to its end, but never more than limit+1 bytes: the
// caller refuses an answer longer than limit. length is the length the
// upstream announced (-1 when unknown), which sizes the buffer; an answer
// of unknown length is read into blocks and copied once into a buffer of
// its size, so that it is held about once, not once per growth. The
// buffers come from a (nil allocates them).
func readAnswer(r io.Reader, length int64, limit int, a *arena) ([]byte, error) {
	if length < 0 || length > int64(limit) {
		return readBlocks(r, limit, a)
	}
	buf := a.alloc(int(length) + 1) // room to read the end without growing
	for {
		end := min(cap(buf), limit+1)
		if len(buf) == end {
			if len(buf) > limit {
				return buf, nil
			}
			buf = slices.Grow(buf, 512) // as append grows
			continue
		}
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// blockSize is the size of the blocks an answer of unknown length is read
// into.
const blockSize = 32 << 10

// readBlocks is readAnswer of an answer of unknown length. Its blocks go
// back to a's pools as soon as the answer is copied out of them.
func readBlocks(r io.Reader, limit int, a *arena) ([]byte, error) {
	blocks := &arena{}
	if a != nil {
		blocks.from = a.from
	}
	defer blocks.release()
	var full [][]byte
	total, n := 0, blockSize // n: the bytes read into the last block
	var err error
	for err == nil && total <= limit {
		if n == blockSize {
			full, n = append(full, blocks.alloc(blockSize)[:blockSize]), 0
		}
		var k int
		k, err = r.Read(full[len(full)-1][n:min(blockSize, n+limit+1-total)])
		n, total = n+k, total+k
	}
	out := a.alloc(total)
	for i, b := range full {
		if i == len(full)-1 {
			b = b[:n]
		}
		out = append(out, b...)
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return out, err
}

// answerBody is a read answer as a response body. Closing it gives its
// buffers back: the proxy closes it once the caller has been sent it.
type answerBody struct {
	bytes.Reader
	held *arena
}

// Close implements io.Closer.
func (b *answerBody) Close() error {
	b.Reset(nil)
	b.held.release()
	return nil
}

// setAnswer makes body resp's body, with its length; closing it releases
// held (which may be nil).
func setAnswer(resp *http.Response, body []byte, held *arena) {
	b := &answerBody{held: held}
	b.Reset(body)
	resp.Body = b
	resp.ContentLength = int64(len(body))
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], int64(len(body)), 10)
	if v := resp.Header["Content-Length"]; len(v) != 1 || v[0] != string(n) {
		resp.Header.Set("Content-Length", string(n))
	}
}
