package answer

import (
	"bytes"
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
// upstream announced (-1 when unknown), which sizes the buffer.
func readAnswer(r io.Reader, length int64, limit int) ([]byte, error) {
	size := 512
	if length >= 0 && length <= int64(limit) {
		size = int(length) + 1 // room to read the end without growing
	}
	buf := make([]byte, 0, size)
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
