package jsonrpc

import "encoding/binary"

// Word-at-a-time scanning of string contents: the long runs of ordinary
// text in a string (an agent's answer is mostly that) are skipped eight
// bytes at a time, and only a word that may hold a byte of interest is
// read byte by byte. The byte loops decide; the word test only ever
// skips words that hold no such byte, so a false alarm costs a byte loop
// over one word and never changes a result.

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// swarZero has a high bit set in a byte of the result for (at least)
// each zero byte of w, and none when w has no zero byte.
func swarZero(w uint64) uint64 { return (w - swarOnes) & ^w & swarHighs }

// swarSpecial reports whether the word w may hold a byte a string cannot
// hold as it is: a control byte (< 0x20), a non-ASCII byte, '"' or '\\'.
func swarSpecial(w uint64) bool {
	return (w-0x20*swarOnes)&^w&swarHighs != 0 || w&swarHighs != 0 ||
		swarZero(w^('"'*swarOnes)) != 0 || swarZero(w^('\\'*swarOnes)) != 0
}

// swarQuote reports whether the word w may hold '"' or '\\'.
func swarQuote(w uint64) bool {
	return swarZero(w^('"'*swarOnes)) != 0 || swarZero(w^('\\'*swarOnes)) != 0
}

// plainEnd returns the offset of the first byte at or after i that is
// not plain (isPlain), or len(d). Long runs are read 32 bytes at a time
// with swarMaybeSpecial, which has no branch per word.
func plainEnd(d []byte, i int) int {
	for i+32 <= len(d) {
		w := d[i : i+32]
		if swarMaybeSpecial(binary.LittleEndian.Uint64(w))|swarMaybeSpecial(binary.LittleEndian.Uint64(w[8:]))|
			swarMaybeSpecial(binary.LittleEndian.Uint64(w[16:]))|swarMaybeSpecial(binary.LittleEndian.Uint64(w[24:])) != 0 {
			break
		}
		i += 32
	}
	for i+8 <= len(d) && !swarSpecial(binary.LittleEndian.Uint64(d[i:])) {
		i += 8
	}
	for i < len(d) && isPlain(d[i]) {
		i++
	}
	return i
}

// swarMaybeSpecial has a high bit set in some byte when the word w may
// hold a byte swarSpecial looks for, and is zero when it holds none. Each
// term may set bits swarSpecial would not (a byte at or above 0x80, and
// any byte after a borrow), but only in a word that holds a non-ASCII
// byte or one of the bytes looked for, which w's own high bits or that
// term's exact hit already flag: a word it passes is plain.
func swarMaybeSpecial(w uint64) uint64 {
	return (w | (w - 0x20*swarOnes) | ((w ^ '"'*swarOnes) - swarOnes) | ((w ^ '\\'*swarOnes) - swarOnes)) & swarHighs
}

// quoteEnd returns the offset of the first '"' or '\\' at or after i, or
// len(d).
func quoteEnd(d []byte, i int) int {
	for {
		for i+8 <= len(d) && !swarQuote(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		end := min(i+8, len(d))
		for ; i < end; i++ {
			if d[i] == '"' || d[i] == '\\' {
				return i
			}
		}
		if i >= len(d) {
			return len(d)
		}
	}
}
