package answer

import (
	"bytes"
	"io"
	"net/http"
	"sync"
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
		{minPooled + 1, minPooled + minPooled/4},
		{2 * minPooled, 2 * minPooled},
		{2*minPooled + 1, 2*minPooled + minPooled/2},
		{256 << 10, 256 << 10},
		{256<<10 + 1, 320 << 10},
		{8<<20 + 1, 10 << 20},
		{maxPooled - 1, maxPooled},
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
	// Every class: its size is the smallest that holds it, at most a
	// quarter over what was asked.
	for c := range nClasses {
		n := classSize(c)
		if got, ok := class(n); !ok || got != c {
			t.Errorf("class(%d) = %d, want %d", n, got, c)
		}
		if got, _ := class(n + 1); c+1 < nClasses && got != c+1 {
			t.Errorf("class(%d) = %d, want %d", n+1, got, c+1)
		}
		if c > 0 && 4*n > 5*(classSize(c-1)+1) {
			t.Errorf("class %d of %d bytes is more than a quarter over %d", c, n, classSize(c-1)+1)
		}
	}
}

// TestKeepOnlyTheAnswer: once an answer is processed, every buffer but
// the one the caller's answer is in goes back, however the answer was
// sliced out of it, and the layout goes back without its text.
func TestKeepOnlyTheAnswer(t *testing.T) {
	pool := &buffers{}
	var layouts sync.Pool
	tests := []struct {
		name string
		out  func(read, mapped []byte) []byte
		keep string // "read", "mapped" or ""
	}{
		{"the read answer, trimmed", func(read, _ []byte) []byte { return read[3:10] }, "read"},
		{"the read answer, capped", func(read, _ []byte) []byte { return read[2:5:6] }, "read"},
		{"the mapped answer", func(_, mapped []byte) []byte { return mapped }, "mapped"},
		{"a refusal of its own", func(_, _ []byte) []byte { return []byte(`{"error":{}}`) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held := &arena{from: pool, layouts: &layouts}
			read := append(held.alloc(20<<10), bytes.Repeat([]byte("r"), 20<<10)...)
			mapped := append(held.alloc(24<<10), bytes.Repeat([]byte("m"), 100)...)
			lay := held.layout()
			held.keepOnly(tt.out(read, mapped))
			want := map[string]int{"read": 1, "mapped": 1, "": 0}[tt.keep]
			if len(held.held) != want || held.lay != nil {
				t.Fatalf("kept %d buffers (want %d), layout %v", len(held.held), want, held.lay)
			}
			if want == 1 && !holds(*held.held[0], map[string][]byte{"read": read, "mapped": mapped}[tt.keep]) {
				t.Fatal("kept the wrong buffer")
			}
			if lay.Of(read) != nil {
				t.Fatal("the layout given back still applies")
			}
			held.release()
		})
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
