package answer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

func TestIsEventStream(t *testing.T) {
	for _, ct := range []string{
		"text/event-stream", "Text/Event-Stream", " text/event-stream ; charset=utf-8", "application/json",
		"", "text/event-streams", "text/event-stream;;", "application/event-stream", "text/plain; x=event-stream",
	} {
		mt, _, _ := mime.ParseMediaType(ct)
		if got, want := isEventStream(ct), mt == "text/event-stream"; got != want {
			t.Errorf("isEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestReadAnswer(t *testing.T) {
	const limit = 1000
	big := strings.Repeat("x", limit+1)
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		r       io.Reader
		length  int64
		wantLen int
		wantErr error
	}{
		{"length announced", strings.NewReader("hello"), 5, 5, nil},
		{"length unknown", strings.NewReader(strings.Repeat("y", 700)), -1, 700, nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader(strings.Repeat("z", 600))), -1, 600, nil},
		{"exactly the limit", strings.NewReader(big[:limit]), limit, limit, nil},
		{"over the limit, announced", strings.NewReader(big + big), 2*limit + 2, limit + 1, nil},
		{"over the limit, announced short", strings.NewReader(big + big), 10, limit + 1, nil},
		{"over the limit, unknown", strings.NewReader(big + big), -1, limit + 1, nil},
		{"read error", iotest.ErrReader(errBoom), -1, 0, errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAnswer(tt.r, tt.length, limit, nil)
			if !errors.Is(err, tt.wantErr) || len(got) != tt.wantLen {
				t.Errorf("read %d bytes, %v; want %d, %v", len(got), err, tt.wantLen, tt.wantErr)
			}
		})
	}
}

// TestReadAnswerInBlocks: an answer of unknown length longer than a
// block is read whole and in order, through a pool or without one, and
// one over the limit is cut at limit+1.
func TestReadAnswerInBlocks(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < 5*blockSize/2; i++ {
		fmt.Fprintf(&text, "%d,", i)
	}
	in := text.String()
	pool := &buffers{}
	tests := []struct {
		name  string
		r     io.Reader
		limit int
		pool  *buffers
		want  string
	}{
		{"pooled", strings.NewReader(in), len(in), pool, in},
		{"pooled again", strings.NewReader(in), len(in), pool, in},
		{"no pool", strings.NewReader(in), len(in), nil, in},
		{"in odd reads", iotest.HalfReader(strings.NewReader(in)), len(in), pool, in},
		{"exactly a block", strings.NewReader(in[:blockSize]), blockSize, pool, in[:blockSize]},
		{"over the limit", strings.NewReader(in), blockSize + 10, pool, in[:blockSize+11]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var held *arena
			if tt.pool != nil {
				held = &arena{from: tt.pool}
				defer held.release()
			}
			got, err := readAnswer(tt.r, -1, tt.limit, held)
			if err != nil || string(got) != tt.want {
				t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(tt.want))
			}
		})
	}
}

func TestSetAnswer(t *testing.T) {
	tests := []struct {
		name   string
		header []string
	}{
		{"same length kept", []string{"11"}},
		{"other length replaced", []string{"12"}},
		{"padded length normalized", []string{"011"}},
		{"repeated length normalized", []string{"11", "11"}},
		{"no length", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{}}
			if tt.header != nil {
				resp.Header["Content-Length"] = tt.header
			}
			setAnswer(resp, []byte(`{"result":1}`[:11]), nil)
			body, _ := io.ReadAll(resp.Body)
			if !bytes.Equal(body, []byte(`{"result":1`)) || resp.ContentLength != 11 ||
				len(resp.Header["Content-Length"]) != 1 || resp.Header.Get("Content-Length") != "11" || resp.Body.Close() != nil {
				t.Errorf("body %q, length %d, header %q", body, resp.ContentLength, resp.Header["Content-Length"])
			}
		})
	}
}
