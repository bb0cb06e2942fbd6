package answer

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

func TestBufferClasses(t *testing.T) {
	if maxPooled != DefaultMaxBytes {
		t.Fatalf("maxPooled %d, want the default answer limit %d", maxPooled, DefaultMaxBytes)
	}
	tests := []struct {
		n       int
		wantCap int // 0: not pooled
	}{
		{0, 0},
		{minPooled - 1, 0},
		{minPooled, minPooled},
		{minPooled + 1, 2 * minPooled},
		{256 << 10, 256 << 10},
		{256<<10 + 1, 512 << 10},
		{maxPooled, maxPooled},
		{maxPooled + 1, 0},
	}
	var b buffers
	for _, tt := range tests {
		p := b.get(tt.n)
		switch {
		case tt.wantCap == 0 && p != nil:
			t.Errorf("get(%d) pooled a buffer of %d", tt.n, cap(*p))
		case tt.wantCap != 0 && (p == nil || cap(*p) != tt.wantCap || len(*p) != 0):
			t.Errorf("get(%d) = %v, want an empty buffer of capacity %d", tt.n, p, tt.wantCap)
		}
	}
}

// TestArenaGivesBackOnce: an answer's buffers go back to the pool when its
// body is closed, and only once, however often it is closed: a buffer in
// the pool twice would be handed to two answers at once.
func TestArenaGivesBackOnce(t *testing.T) {
	pool := &buffers{}
	held := &arena{from: pool}
	buf := held.alloc(20 << 10)
	buf = append(buf, "an answer"...)
	resp := &http.Response{Header: http.Header{}}
	setAnswer(resp, buf, held)
	got, _ := io.ReadAll(resp.Body)
	if string(got) != "an answer" {
		t.Fatalf("body %q", got)
	}
	for range 3 {
		if err := resp.Body.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := resp.Body.Read(make([]byte, 8)); n != 0 {
		t.Fatalf("a closed body still reads %d bytes", n)
	}
	// The pool may drop what it holds at any time; what it must never do is
	// give one buffer twice.
	a, b := pool.get(20<<10), pool.get(20<<10)
	if &(*a)[:1][0] == &(*b)[:1][0] {
		t.Fatal("one buffer handed out twice")
	}
}

// TestNilArenaAllocates: without an arena (a caller of Unary, a test)
// every buffer is allocated and nothing is pooled.
func TestNilArenaAllocates(t *testing.T) {
	var held *arena
	if b := held.alloc(64 << 10); cap(b) < 64<<10 || len(b) != 0 {
		t.Fatalf("alloc gave %d/%d", len(b), cap(b))
	}
	held.release()
	body, err := readAnswer(bytes.NewReader(bytes.Repeat([]byte("x"), 40<<10)), -1, 1<<20, nil)
	if err != nil || len(body) != 40<<10 {
		t.Fatalf("read %d, %v", len(body), err)
	}
}
