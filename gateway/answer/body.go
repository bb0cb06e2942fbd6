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
	"sync"
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
// of unknown length is read into blocks from blocks (a pool of
// *[]byte; nil allocates them) and copied once into a buffer of its
// size, so that it is allocated about once, not once per growth.
func readAnswer(r io.Reader, length int64, limit int, blocks *sync.Pool) ([]byte, error) {
	if length < 0 || length > int64(limit) {
		return readBlocks(r, limit, blocks)
	}
	buf := make([]byte, 0, int(length)+1) // room to read the end without growing
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

// newBlock is a pool's New for blocks.
func newBlock() any {
	b := make([]byte, blockSize)
	return &b
}

// readBlocks is readAnswer of an answer of unknown length.
func readBlocks(r io.Reader, limit int, blocks *sync.Pool) ([]byte, error) {
	var full []*[]byte
	defer func() {
		for _, b := range full {
			if blocks != nil {
				blocks.Put(b)
			}
		}
	}()
	total, n := 0, blockSize // n: the bytes read into the last block
	var err error
	for err == nil && total <= limit {
		if n == blockSize {
			var b *[]byte
			if blocks != nil {
				b, _ = blocks.Get().(*[]byte)
			}
			if b == nil {
				b = newBlock().(*[]byte)
			}
			full, n = append(full, b), 0
		}
		var k int
		k, err = r.Read((*full[len(full)-1])[n:min(blockSize, n+limit+1-total)])
		n, total = n+k, total+k
	}
	out := make([]byte, 0, total)
	for i, b := range full {
		if i == len(full)-1 {
			out = append(out, (*b)[:n]...)
		} else {
			out = append(out, *b...)
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return out, err
}

// answerBody is a read answer as a response body.
type answerBody struct{ bytes.Reader }

// Close implements io.Closer.
func (*answerBody) Close() error { return nil }

// setAnswer makes body resp's body, with its length.
func setAnswer(resp *http.Response, body []byte) {
	b := &answerBody{}
	b.Reset(body)
	resp.Body = b
	resp.ContentLength = int64(len(body))
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], int64(len(body)), 10)
	if v := resp.Header["Content-Length"]; len(v) != 1 || v[0] != string(n) {
		resp.Header.Set("Content-Length", string(n))
	}
}
