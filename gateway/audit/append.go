package audit

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// The append-style encoders below write exactly what encoding/json's
// Encoder writes with HTML escaping off, for the values of the data model
// the handler produces itself, without reflection or intermediate values.
// The differential tests compare them with encoding/json.

const hexDigits = "0123456789abcdef"

// appendString appends s, which must be valid UTF-8, as a JSON string.
func appendString(dst []byte, s string) []byte {
	dst, _ = appendJSONString(dst, s, false)
	return dst
}

// appendCleanString appends clean(s) as a JSON string, in one pass over s
// when s is valid UTF-8, as it nearly always is; only a string with an
// invalid sequence is cleaned first.
func appendCleanString(dst []byte, s string) []byte {
	out, ok := appendJSONString(dst, s, true)
	if !ok {
		out, _ = appendJSONString(out[:len(dst)], clean(s), false)
	}
	return out
}

// appendJSONString appends s as a JSON string. An invalid UTF-8 sequence
// stops it (ok false, what was appended unspecified) when strict;
// otherwise each invalid byte is written as \ufffd.
func appendJSONString(dst []byte, s string, strict bool) (out []byte, ok bool) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			if strict {
				return dst, false
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), true
}

// appendFloat appends f as floatValue encodes it: encoding/json's
// shortest form, or a string for NaN and the infinities.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendString(dst, strconv.FormatFloat(f, 'g', -1, 64))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendTime appends t as an RFC 3339 string with nanoseconds; the format
// writes no character that JSON escapes.
func appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}
