package enforce

import (
	"bytes"
	"strings"
)

// rareID is one id of a few-id matcher with the byte its search skips
// to: the one of its bytes least likely in an answer (rareRank), at off
// in the id. An answer of prose and JSON rarely holds it, so the search
// reads the text at memchr speed and compares only where that byte
// occurs, where bytes.Index stops at every occurrence of the id's first
// byte, often a common letter.
type rareID struct {
	id   string
	rare byte
	off  int
}

// newRareID picks id's rarest byte, the last of equally rare ones; id
// must not be empty.
func newRareID(id string) rareID {
	r := rareID{id: id, rare: id[0]}
	for i := 1; i < len(id); i++ {
		if rareRank(id[i]) <= rareRank(r.rare) {
			r.rare, r.off = id[i], i
		}
	}
	return r
}

// commonBytes are the bytes most frequent in answers (English prose in
// JSON), most frequent first.
const commonBytes = ` etaoinsrhldcumfpgwybvkxjqz",.:{}[]0123456789ETAOINSRHLDCUMFPGWYBVKXJQZ`

// rareRank ranks b by how often it occurs in an answer: lower is rarer.
// A byte outside commonBytes ranks rarest of all.
func rareRank(b byte) int {
	if i := strings.IndexByte(commonBytes, b); i >= 0 {
		return len(commonBytes) - i
	}
	return 0
}

// index returns where r.id first occurs in b at or after from, or -1: the
// same as bytes.Index(b[from:], id) offset by from. Where the rare byte
// turns out common in b (more than one false candidate per 16 bytes
// read), it gives way to bytes.Index for the rest, so no text costs much
// more than bytes.Index would.
func (r rareID) index(b []byte, from int) int {
	start, fails := from, 0
	for p := from + r.off; p < len(b); {
		i := bytes.IndexByte(b[p:], r.rare)
		if i < 0 {
			return -1
		}
		s := p + i - r.off
		if s+len(r.id) > len(b) {
			return -1
		}
		if string(b[s:s+len(r.id)]) == r.id {
			return s
		}
		p += i + 1
		if fails++; fails > 4+(p-start)/16 {
			if j := bytes.Index(b[s+1:], []byte(r.id)); j >= 0 {
				return s + 1 + j
			}
			return -1
		}
	}
	return -1
}
