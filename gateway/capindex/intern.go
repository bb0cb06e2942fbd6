package capindex

// interner keeps one copy of equal keys, and of a value made from each,
// for as long as something holds them: add counts a holder, drop uncounts
// one, and a key no holder uses is forgotten, so the interner never
// outgrows what is held. It is not safe for concurrent use; its owner
// locks it.
type interner[K comparable, V any] struct {
	m map[K]*interned[K, V]
	// own returns the key to keep for k, a copy that shares no memory
	// with what k was cut from (so a kept key never holds a larger string
	// alive), and the value kept with it.
	own func(k K) (K, V)
}

// interned is one kept key, its value and the number of its holders.
type interned[K comparable, V any] struct {
	key  K
	v    V
	refs int
}

// add returns the kept copy of k, keeping one if there is none, and counts
// one more holder of it.
func (in *interner[K, V]) add(k K) *interned[K, V] {
	if in.m == nil {
		in.m = map[K]*interned[K, V]{}
	}
	e, ok := in.m[k]
	if !ok {
		e = &interned[K, V]{}
		e.key, e.v = in.own(k)
		in.m[e.key] = e
	}
	e.refs++
	return e
}

// drop counts one holder of k less, and forgets k when none is left.
func (in *interner[K, V]) drop(k K) {
	e, ok := in.m[k]
	if !ok {
		return
	}
	if e.refs--; e.refs <= 0 {
		delete(in.m, k)
	}
}

// len returns the number of keys kept.
func (in *interner[K, V]) len() int { return len(in.m) }
