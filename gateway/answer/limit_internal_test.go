package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestModifyAnswerLimit: a unary answer over the call's limit (or, when
// the call sets none, the pipeline's) is replaced by answer_too_large
// naming the limit; one within it passes as it was sent.
func TestModifyAnswerLimit(t *testing.T) {
	answer := func(n int) string { return `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("z", n) + `"}` }
	refused := func(limit string) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the agent's answer is larger than the gateway's limit of ` + limit +
			` bytes","data":{"limit":` + limit + `,"reason":"answer_too_large"}}}`
	}
	tests := []struct {
		name      string
		pipeline  int // Options.MaxBytes
		call      int // Call.MaxBytes
		body      string
		chunked   bool // no Content-Length
		want      string
		wantLimit bool
	}{
		{"within the pipeline's", 4096, 0, answer(100), false, answer(100), false},
		{"over the pipeline's", 4096, 0, answer(4096), false, refused("4096"), true},
		{"over it, length unknown", 4096, 0, answer(4096), true, refused("4096"), true},
		{"the call's own, larger", 4096, 8192, answer(5000), false, answer(5000), false},
		{"the call's own, smaller", 8192, 4096, answer(5000), false, refused("4096"), true},
		{"exactly the limit", 4096, 0, answer(4096 - len(answer(0))), false, answer(4096 - len(answer(0))), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New[int](Options{MaxBytes: tt.pipeline}, func(_ context.Context, _ int, r json.RawMessage) (json.RawMessage, error) { return r, nil })
			if err != nil {
				t.Fatal(err)
			}
			resp := &http.Response{
				StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(tt.body)), ContentLength: int64(len(tt.body)),
				Request: httptest.NewRequest(http.MethodPost, "/", nil),
			}
			if tt.chunked {
				resp.ContentLength = -1
				resp.Body = io.NopCloser(io.MultiReader(strings.NewReader(tt.body[:10]), strings.NewReader(tt.body[10:])))
			}
			if err := p.Modify(resp, Call[int]{ID: json.RawMessage("1"), MaxBytes: tt.call}); err != nil {
				t.Fatalf("Modify: %v", err)
			}
			got, _ := io.ReadAll(resp.Body)
			if string(got) != tt.want || resp.ContentLength != int64(len(got)) {
				t.Fatalf("got %.200s (length %d)\nwant %.200s", got, resp.ContentLength, tt.want)
			}
			if tt.wantLimit == bytes.Contains(got, []byte("zzz")) {
				t.Fatal("the refused answer reached the caller, or the answer did not")
			}
		})
	}
}

// countingBody is an answer body that records what was read of it and
// whether it was closed.
type countingBody struct {
	r      io.Reader
	read   int
	closed bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += n
	return n, err
}

func (b *countingBody) Close() error { b.closed = true; return nil }

// TestModifyRefusesAnnouncedUnread: an answer whose Content-Length is
// over the limit is refused without a byte of it being read.
func TestModifyRefusesAnnouncedUnread(t *testing.T) {
	p, err := New[int](Options{MaxBytes: 4096}, func(_ context.Context, _ int, r json.RawMessage) (json.RawMessage, error) { return r, nil })
	if err != nil {
		t.Fatal(err)
	}
	body := &countingBody{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("z", 8192) + `"}`)}
	resp := &http.Response{
		StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: body, ContentLength: 1 << 30,
		Request: httptest.NewRequest(http.MethodPost, "/", nil),
	}
	if err := p.Modify(resp, Call[int]{ID: json.RawMessage("1")}); err != nil {
		t.Fatalf("Modify: %v", err)
	}
	got, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(got, []byte(`"reason":"answer_too_large"`)) || bytes.Contains(got, []byte("zzz")) {
		t.Fatalf("got %.300s, want the answer_too_large refusal alone", got)
	}
	if body.read != 0 || !body.closed {
		t.Fatalf("the upstream body was read (%d bytes) or left open (closed %v)", body.read, body.closed)
	}
}
