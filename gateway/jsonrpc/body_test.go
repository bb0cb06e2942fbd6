package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadBody(t *testing.T) {
	lim := Limits{MaxBodyBytes: 100, MaxBatch: 1, MaxDepth: 3}
	tests := []struct {
		name    string
		r       io.Reader
		wantLen int
		wantErr error
	}{
		{"empty", strings.NewReader(""), 0, nil},
		{"at limit", strings.NewReader(strings.Repeat("a", 100)), 100, nil},
		{"one over", strings.NewReader(strings.Repeat("a", 101)), 0, ErrBodyTooLarge},
		{"far over", strings.NewReader(strings.Repeat("a", 1<<20)), 0, ErrBodyTooLarge},
		{"read error", io.MultiReader(strings.NewReader("ab"), errReader{}), 0, io.ErrUnexpectedEOF},
		{"MaxBytesReader", http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(strings.NewReader(strings.Repeat("a", 60))), 50), 0, ErrBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReadBody(tt.r, lim)
			if !errors.Is(err, tt.wantErr) || len(b) != tt.wantLen {
				t.Fatalf("ReadBody() = %d bytes, %v; want %d, %v", len(b), err, tt.wantLen, tt.wantErr)
			}
		})
	}
	if _, err := ReadBody(strings.NewReader(""), Limits{}); !errors.Is(err, ErrInvalidLimits) {
		t.Errorf("ReadBody(zero limits) error = %v", err)
	}
}

// TestReadBodyLen: the announced length is a hint only. A body shorter
// or longer than announced is read as it is, the limit holds whatever was
// announced, and an announced length over the limit changes nothing.
func TestReadBodyLen(t *testing.T) {
	lim := Limits{MaxBodyBytes: 100, MaxBatch: 1, MaxDepth: 3}
	tests := []struct {
		name     string
		body     string
		announce int64
		wantLen  int
		wantErr  error
	}{
		{"as announced", strings.Repeat("a", 40), 40, 40, nil},
		{"unknown length", strings.Repeat("a", 40), -1, 40, nil},
		{"shorter than announced", strings.Repeat("a", 10), 40, 10, nil},
		{"longer than announced", strings.Repeat("a", 90), 40, 90, nil},
		{"over the limit, announced small", strings.Repeat("a", 101), 10, 0, ErrBodyTooLarge},
		{"announced over the limit", strings.Repeat("a", 50), 1 << 40, 50, nil},
		{"announced large, sent small", strings.Repeat("a", 50), 99, 50, nil},
		{"empty", "", 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReadBodyLen(strings.NewReader(tt.body), tt.announce, lim)
			if !errors.Is(err, tt.wantErr) || len(b) != tt.wantLen {
				t.Fatalf("ReadBodyLen() = %d bytes, %v; want %d, %v", len(b), err, tt.wantLen, tt.wantErr)
			}
			if err == nil && string(b) != tt.body {
				t.Fatalf("ReadBodyLen() = %q, want %q", b, tt.body)
			}
			if cap(b) > maxBodyHint+bytes.MinRead+len(tt.body) {
				t.Fatalf("ReadBodyLen() reserved %d bytes for a %d-byte body", cap(b), len(tt.body))
			}
		})
	}
}

// TestReadBodyLenCapsTheHint: a body announced at the limit and not sent
// reserves at most maxBodyHint before its bytes arrive.
func TestReadBodyLenCapsTheHint(t *testing.T) {
	lim := DefaultLimits()
	b, err := ReadBodyLen(strings.NewReader("{}"), lim.MaxBodyBytes, lim)
	if err != nil || string(b) != "{}" {
		t.Fatalf("ReadBodyLen() = %q, %v", b, err)
	}
	if cap(b) > 2*maxBodyHint { // the allocator rounds up to a size class
		t.Errorf("a body announced at %d bytes reserved %d before they arrived", lim.MaxBodyBytes, cap(b))
	}
}

// errReader fails every read.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadBodyStopsEarly checks that an oversized body is not read to its
// end: the cost of a hostile body is bounded by the limit.
func TestReadBodyStopsEarly(t *testing.T) {
	cr := &countingReader{r: strings.NewReader(strings.Repeat("a", 10<<20))}
	if _, err := ReadBody(cr, DefaultLimits()); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("ReadBody() error = %v", err)
	}
	if cr.n > 1<<20+1 {
		t.Errorf("read %d bytes, want at most the limit plus one", cr.n)
	}
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name    string
		lim     Limits
		wantErr error
	}{
		{"default", DefaultLimits(), nil},
		{"minimal", Limits{MaxBodyBytes: MinBodyBytes, MaxBatch: 1, MaxDepth: 3}, nil},
		{"zero", Limits{}, ErrInvalidLimits},
		{"small body", Limits{MaxBodyBytes: 10, MaxBatch: 1, MaxDepth: 3}, ErrInvalidLimits},
		{"huge body", Limits{MaxBodyBytes: MaxBodyBytesCeiling + 1, MaxBatch: 1, MaxDepth: 3}, ErrInvalidLimits},
		{"largest body", Limits{MaxBodyBytes: MaxBodyBytesCeiling, MaxBatch: 1, MaxDepth: 3}, nil},
		{"no batch", Limits{MaxBodyBytes: 1024, MaxBatch: 0, MaxDepth: 3}, ErrInvalidLimits},
		{"huge batch", Limits{MaxBodyBytes: 1024, MaxBatch: MaxBatchCeiling + 1, MaxDepth: 3}, ErrInvalidLimits},
		{"shallow", Limits{MaxBodyBytes: 1024, MaxBatch: 1, MaxDepth: 2}, ErrInvalidLimits},
		{"too deep", Limits{MaxBodyBytes: 1024, MaxBatch: 1, MaxDepth: MaxDepthCeiling + 1}, ErrInvalidLimits},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.lim.Validate(); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Validate() = %v, want %v", err, tt.wantErr)
			}
		})
	}
	// Every problem is reported, not only the first.
	if err := (Limits{}).Validate(); strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("Validate() of zero limits = %q, want three problems", err)
	}
}

func TestLimitsWithDefaults(t *testing.T) {
	got := Limits{MaxBatch: 5}.WithDefaults()
	want := DefaultLimits()
	want.MaxBatch = 5
	if got != want {
		t.Errorf("WithDefaults = %+v, want %+v", got, want)
	}
	var le *LimitError
	if err := (Limits{MaxBodyBytes: 1024, MaxBatch: 1, MaxDepth: 2}).Validate(); !errors.As(err, &le) || le.Field != "max_depth" {
		t.Errorf("Validate() = %v, want a *LimitError for max_depth", err)
	}
}
