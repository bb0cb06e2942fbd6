package answer

import (
	"bytes"
	"encoding/binary"
)

// plainAsIs is jsonrpc.AsIs on the content of a plain string literal of
// valid JSON (jsonrpc.PlainString): such content holds no '"', no '\\'
// and no control byte already, so what remains to rule out is a byte
// outside ASCII or DEL, and '<', '>' and '&'. It looks for the last four
// with IndexByte and for the first a word at a time, where AsIs tests
// seven conditions on every byte.
func plainAsIs(content []byte) bool {
	for _, c := range []byte("<>&\x7f") {
		if bytes.IndexByte(content, c) >= 0 {
			return false
		}
	}
	const highs = 0x8080808080808080
	i := 0
	for ; i+8 <= len(content); i += 8 {
		if binary.LittleEndian.Uint64(content[i:])&highs != 0 {
			return false
		}
	}
	for ; i < len(content); i++ {
		if content[i] >= 0x80 {
			return false
		}
	}
	return true
}
