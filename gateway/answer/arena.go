package answer

import (
	"context"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Answer buffers. A unary answer is held whole while the pipeline reads,
// checks and rewrites it. At 256 KiB, allocating its buffers (the one it
// is read into, the one the id mapping writes) costs the process more in
// zeroing and in the collector's work than the copying does. They come
// from pools of a few sizes, and go back once the caller has been sent
// the answer: the proxy closes the answer's body after writing it, and
// nothing keeps a slice of them past that (a Processor never keeps resp).

const (
	// minShift is the size of the smallest buffer pooled, minPooled, as
	// a power of two: an answer smaller than this is allocated, which
	// costs less than a pool's round trip.
	minShift  = 13
	minPooled = 1 << minShift
	// maxPooled is the largest buffer pooled: the default answer limit
	// (1 << maxShift). A larger one (an agent's own limit) is allocated.
	maxShift  = 24
	maxPooled = 1 << maxShift
	// nClasses is the number of size classes: minPooled, then four
	// between each power of two and the next.
	nClasses = 1 + 4*(maxShift-minShift)
	// maxKeptLayout is the most entries a layout given back keeps room
	// for: one that needed more (a large answer) is dropped.
	maxKeptLayout = 1 << 16
)

// buffers pools byte slices in size classes from minPooled to maxPooled,
// four between each power of two and the next, so that a buffer is at
// most a quarter larger than what it was asked for. The zero value is
// ready to use.
type buffers struct {
	classes [nClasses]sync.Pool
}

// class is the size class of the smallest buffer that holds n bytes, and
// whether one exists.
func class(n int) (int, bool) {
	switch {
	case n > maxPooled:
		return 0, false
	case n <= minPooled:
		return 0, true
	}
	k := bits.Len(uint(n-1)) - 1 // 2^k < n <= 2^(k+1)
	step := 1 << (k - 2)
	q := (n - 1<<k + step - 1) / step // 1..4 quarters above 2^k
	return 1 + 4*(k-minShift) + q - 1, true
}

// classSize is the capacity of the buffers of class c.
func classSize(c int) int {
	if c == 0 {
		return minPooled
	}
	k, q := minShift+(c-1)/4, (c-1)%4+1
	return 1<<k + q<<(k-2)
}

// get returns an empty buffer with room for n bytes, from its class's
// pool when there is one; nil means n is not pooled.
func (b *buffers) get(n int) *[]byte {
	c, ok := class(n)
	if !ok || n < minPooled {
		return nil
	}
	if p, _ := b.classes[c].Get().(*[]byte); p != nil {
		*p = (*p)[:0]
		return p
	}
	s := make([]byte, 0, classSize(c))
	return &s
}

// put gives back a buffer get returned.
func (b *buffers) put(p *[]byte) {
	if c, ok := class(cap(*p)); ok && cap(*p) == classSize(c) {
		b.classes[c].Put(p)
	}
}

// arena is what one answer took from the buffers, given back all at once
// by release: the byte buffers, and the layout the answer check records
// for the processors (LayoutOf). A nil arena, or one with no buffers,
// allocates every buffer; one without layouts records none. It is used
// by one goroutine at a time.
type arena struct {
	from *buffers
	held []*[]byte
	// layouts pools layouts; lay is the one this answer holds.
	layouts *sync.Pool
	lay     *jsonrpc.Layout
}

// layout returns the answer's layout, to be recorded by the check of each
// response object in turn, or nil when the arena records none.
func (a *arena) layout() *jsonrpc.Layout {
	if a == nil || a.layouts == nil {
		return nil
	}
	if a.lay == nil {
		a.lay, _ = a.layouts.Get().(*jsonrpc.Layout)
		if a.lay == nil {
			a.lay = new(jsonrpc.Layout)
		}
	}
	return a.lay
}

// alloc returns an empty buffer with room for n bytes.
func (a *arena) alloc(n int) []byte {
	if a == nil || a.from == nil {
		return make([]byte, 0, n)
	}
	p := a.from.get(n)
	if p == nil {
		return make([]byte, 0, n)
	}
	a.held = append(a.held, p)
	return *p
}

// release gives back every buffer the arena handed out, and its layout;
// a second call gives back nothing.
func (a *arena) release() {
	a.keepOnly(nil)
}

// keepOnly gives back the layout and every buffer but the one out is
// in (the answer the caller is being sent), as soon as the answer is
// processed, so that a caller reading slowly holds no more than its
// answer.
func (a *arena) keepOnly(out []byte) {
	if a == nil {
		return
	}
	kept := a.held[:0]
	for _, p := range a.held {
		if holds(*p, out) {
			kept = append(kept, p)
		} else {
			a.from.put(p)
		}
	}
	clear(a.held[len(kept):])
	a.held = kept
	if a.lay != nil {
		a.lay.Forget(maxKeptLayout)
		a.layouts.Put(a.lay)
		a.lay = nil
	}
}

// holds reports whether out starts inside p's array, however either was
// sliced: a buffer the caller's answer is in must not be given back
// before the proxy has written it. The addresses are compared, never
// turned back into pointers; the heap does not move.
func holds(p, out []byte) bool {
	if cap(p) == 0 || cap(out) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(out)))
	return lo <= at && at < lo+uintptr(cap(p))
}

// LayoutOf returns the layout the answer check recorded of resp, when a
// processor running in ctx is given the very text the check accepted
// (jsonrpc.Layout.Of), or nil: the processor then walks resp itself. A
// processor reads it during its call and never keeps it.
func LayoutOf(ctx context.Context, resp []byte) *jsonrpc.Layout {
	if a := arenaOf(ctx); a != nil {
		return a.lay.Of(resp)
	}
	return nil
}

// arenaKey is the context key of the arena of the answer being processed.
type arenaKey struct{}

// withArena returns ctx carrying a, for the processors of one answer.
func withArena(ctx context.Context, a *arena) context.Context {
	return context.WithValue(ctx, arenaKey{}, a)
}

// arenaOf is the arena ctx carries, or nil.
func arenaOf(ctx context.Context) *arena {
	a, _ := ctx.Value(arenaKey{}).(*arena)
	return a
}
