package jsonrpc

import "iter"

// The walkers below read text the checker has already accepted, so they do
// not re-validate: they only find where values start and end.

// memberIter walks the members of one validated object.
type memberIter struct {
	data []byte
	pos  int
}

// newMemberIter starts a walk over obj, which must be a validated object.
func newMemberIter(obj []byte) memberIter {
	return memberIter{data: obj, pos: 1}
}

// next returns the next member: its name as raw string contents (between
// the quotes, still escaped), whether the name holds an escape, and its
// value. ok is false after the last member.
func (it *memberIter) next() (name []byte, escaped bool, value []byte, ok bool) {
	d := it.data
	it.pos = skipSpace(d, it.pos)
	if it.pos < len(d) && d[it.pos] == ',' {
		it.pos = skipSpace(d, it.pos+1)
	}
	if it.pos >= len(d) || d[it.pos] != '"' {
		return nil, false, nil, false
	}
	end, escaped := skipString(d, it.pos)
	name = d[it.pos+1 : end-1]
	it.pos = skipSpace(d, end)
	it.pos = skipSpace(d, it.pos+1) // the colon
	start := it.pos
	it.pos = skipValue(d, start)
	return name, escaped, d[start:it.pos], true
}

// elements yields the elements of the validated array arr.
func elements(arr []byte) iter.Seq[[]byte] {
	return func(yield func(elem []byte) bool) {
		pos := skipSpace(arr, 1)
		for pos < len(arr) && arr[pos] != ']' {
			end := skipValue(arr, pos)
			if !yield(arr[pos:end]) {
				return
			}
			pos = skipSpace(arr, end)
			if pos < len(arr) && arr[pos] == ',' {
				pos = skipSpace(arr, pos+1)
			}
		}
	}
}

// skipValue returns the offset just past the validated value at pos.
func skipValue(d []byte, pos int) int {
	switch d[pos] {
	case '"':
		end, _ := skipString(d, pos)
		return end
	case '{', '[':
		return skipContainer(d, pos)
	}
	for pos < len(d) && !isDelim(d[pos]) {
		pos++
	}
	return pos
}

// skipContainer returns the offset just past the validated object or array
// at pos.
func skipContainer(d []byte, pos int) int {
	depth := 0
	for pos < len(d) {
		switch d[pos] {
		case '"':
			pos, _ = skipString(d, pos)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return pos + 1
			}
		}
		pos++
	}
	return pos
}

// skipString returns the offset just past the validated string at pos, and
// whether it holds an escape.
func skipString(d []byte, pos int) (end int, escaped bool) {
	for i := pos + 1; i < len(d); i++ {
		switch d[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++
		}
	}
	return len(d), escaped
}

func skipSpace(d []byte, pos int) int {
	for pos < len(d) && isSpace(d[pos]) {
		pos++
	}
	return pos
}

func isDelim(b byte) bool {
	return b == ',' || b == '}' || b == ']' || isSpace(b)
}
