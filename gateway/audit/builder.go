package audit

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// builder encodes one record's attributes in canonical form without
// maps or reflection: the attribute tree is laid out in reused slices,
// each object's members are renamed and sorted exactly as put and
// encodeMembers do, and everything is appended to one buffer. It handles
// the shapes events have (scalars, strings, errors, string slices,
// groups) up to maxFastFields members; any other record is encoded by the
// general path, which the differential tests hold it equal to.
type builder struct {
	objs []object
	used int
	size int // members laid out so far, all objects
	buf  []byte
	ms   []member
}

// object is one JSON object being built.
type object struct{ fields []field }

// field is one member: a scalar value, or the object objs[sub].
type field struct {
	key string
	val slog.Value
	sub int // -1 for a scalar
}

// maxFastFields bounds the members the builder lays out (renaming scans
// an object's members); larger records take the general path.
const maxFastFields = 64

// maxPooledBuffer is the largest buffer a builder keeps between events.
const maxPooledBuffer = 64 << 10

// reserved are the top-level names attributes may not take.
var reserved = [...]string{FieldTime, FieldEvent, FieldChain, FieldSeq, FieldPrev, FieldHash}

// builderPool hands out builders; the zero value is ready to use.
type builderPool struct{ p sync.Pool }

func (bp *builderPool) get() *builder {
	if b, ok := bp.p.Get().(*builder); ok {
		return b
	}
	return &builder{}
}

func (bp *builderPool) put(b *builder) {
	if cap(b.buf) > maxPooledBuffer || b.size > maxFastFields {
		return
	}
	bp.p.Put(b)
}

// encode lays out and encodes the attributes of r (when not nil), then
// attrs, under steps, returning the top-level members sorted by key. ok
// is false when the record is not one the builder handles; then nothing
// it returned is used.
func (b *builder) encode(steps []step, r *slog.Record, attrs []slog.Attr) (ms []member, ok bool) {
	b.used, b.size, b.buf, b.ms = 0, 0, b.buf[:0], b.ms[:0]
	root := b.newObject()
	cur, pending := root, 0
	enter := func(upto int) {
		for _, s := range steps[pending:upto] {
			if s.group != "" {
				sub := b.newObject()
				b.put(cur, s.group, field{sub: sub})
				cur = sub
			}
		}
		pending = upto
	}
	for i, s := range steps {
		if s.group != "" || !hasContent(s.attrs) {
			continue
		}
		enter(i)
		for _, a := range s.attrs {
			if !b.addAttr(cur, a) {
				return nil, false
			}
		}
	}
	ok = true
	if len(attrs) > 0 || r != nil && r.NumAttrs() > 0 {
		enter(len(steps))
	}
	if r != nil {
		r.Attrs(func(a slog.Attr) bool { ok = b.addAttr(cur, a); return ok })
	}
	for i := 0; ok && i < len(attrs); i++ {
		ok = b.addAttr(cur, attrs[i])
	}
	if !ok || b.size > maxFastFields {
		return nil, false
	}
	return b.members(root), true
}

// members encodes the root object's members, sorted, one member each.
func (b *builder) members(root int) []member {
	fs := b.objs[root].fields
	sortFields(fs)
	// Room for the reserved members the handler and the chain insert, so
	// that inserting them never reallocates.
	b.ms = slices.Grow(b.ms[:0], len(fs)+len(reserved))
	for _, f := range fs {
		// A member keeps the array it was appended to when b.buf grows;
		// nothing appended is ever changed.
		start := len(b.buf)
		b.buf = b.appendField(b.buf, f)
		b.ms = append(b.ms, member{key: f.key, enc: b.buf[start:len(b.buf):len(b.buf)]})
	}
	return b.ms
}

// member encodes one reserved string field into the builder's buffer.
func (b *builder) member(key, value string) member {
	start := len(b.buf)
	b.buf = appendString(b.buf, key)
	b.buf = append(b.buf, ':')
	b.buf = appendString(b.buf, value)
	return member{key: key, enc: b.buf[start:len(b.buf):len(b.buf)]}
}

func (b *builder) newObject() int {
	if b.used == len(b.objs) {
		b.objs = append(b.objs, object{})
	}
	b.objs[b.used].fields = b.objs[b.used].fields[:0]
	b.used++
	return b.used - 1
}

// addAttr is addAttr for the builder; it reports false for a value the
// builder does not handle.
func (b *builder) addAttr(obj int, a slog.Attr) bool {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return true
	}
	if a.Value.Kind() != slog.KindGroup {
		if !fastValue(a.Value) {
			return false
		}
		b.put(obj, a.Key, field{val: a.Value, sub: -1})
		return true
	}
	attrs := a.Value.Group()
	if a.Key == "" {
		for _, g := range attrs {
			if !b.addAttr(obj, g) {
				return false
			}
		}
		return true
	}
	sub := b.newObject()
	for _, g := range attrs {
		if !b.addAttr(sub, g) {
			return false
		}
	}
	if len(b.objs[sub].fields) > 0 {
		b.put(obj, a.Key, field{sub: sub})
	}
	return true
}

// put is put for the builder: the key is cleaned, and renamed key#2,
// key#3, ... when an earlier member (or, at the root, a reserved field)
// has it.
func (b *builder) put(obj int, key string, f field) {
	b.size++
	if b.size > maxFastFields {
		return // the caller falls back; renaming stays linear
	}
	f.key = clean(key)
	for n := 2; b.taken(obj, f.key); n++ {
		f.key = clean(key) + "#" + strconv.Itoa(n)
	}
	b.objs[obj].fields = append(b.objs[obj].fields, f)
}

func (b *builder) taken(obj int, key string) bool {
	if obj == 0 && slices.Contains(reserved[:], key) {
		return true
	}
	for _, f := range b.objs[obj].fields {
		if f.key == key {
			return true
		}
	}
	return false
}

// fastValue reports whether the builder encodes v itself.
func fastValue(v slog.Value) bool {
	if v.Kind() != slog.KindAny {
		return true
	}
	switch v.Any().(type) {
	case nil, string, error, []string:
		return true
	}
	return false
}

// appendField appends `"key":value`.
func (b *builder) appendField(dst []byte, f field) []byte {
	dst = appendString(dst, f.key)
	dst = append(dst, ':')
	if f.sub >= 0 {
		return b.appendObject(dst, f.sub)
	}
	return appendValue(dst, f.val)
}

// appendObject appends objs[obj] with its members sorted by key.
func (b *builder) appendObject(dst []byte, obj int) []byte {
	fs := b.objs[obj].fields
	sortFields(fs)
	dst = append(dst, '{')
	for i, f := range fs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = b.appendField(dst, f)
	}
	return append(dst, '}')
}

// sortFields sorts an object's members by key. Events whose attributes
// come in key order (the invocation's) are only checked: sorting moves
// every member, and those events are on every call's path.
func sortFields(fs []field) {
	cmp := func(x, y field) int { return strings.Compare(x.key, y.key) }
	if !slices.IsSortedFunc(fs, cmp) {
		slices.SortFunc(fs, cmp)
	}
}

// appendValue appends a value fastValue accepts, as jsonValue and
// encoding/json together would write it.
func appendValue(dst []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendCleanString(dst, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(dst, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(dst, v.Uint64(), 10)
	case slog.KindFloat64:
		return appendFloat(dst, v.Float64())
	case slog.KindBool:
		return strconv.AppendBool(dst, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(dst, int64(v.Duration()), 10)
	case slog.KindTime:
		return appendTime(dst, v.Time())
	}
	switch t := v.Any().(type) {
	case string:
		return appendCleanString(dst, t)
	case error:
		return appendCleanString(dst, t.Error())
	case []string:
		dst = append(dst, '[')
		for i, s := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCleanString(dst, s)
		}
		return append(dst, ']')
	}
	return append(dst, "null"...)
}
