package cardsig

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// appendJCS appends v serialized as RFC 8785 (JSON Canonicalization
// Scheme) to b: objects with members sorted by the UTF-16 code units of
// their names, no whitespace, strings and numbers as ECMAScript's
// JSON.stringify writes them. v holds what encoding/json decodes into
// any: nil, bool, float64, string, []any and map[string]any.
func appendJCS(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case float64:
		return appendNumber(b, x)
	case string:
		return appendString(b, x), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJCS(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return appendObject(b, x)
	}
	return nil, fmt.Errorf("%w: a %T is not JSON", ErrNotCanonical, v)
}

func appendObject(b []byte, obj map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))) })
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		var err error
		if b, err = appendJCS(b, obj[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendString writes s as JSON.stringify does: only ", \ and the
// control characters are escaped, with the short escapes where there is
// one and lower-case \u00xx otherwise.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// appendNumber writes f as ECMAScript's Number::toString does (RFC 8785
// §3.2.2.3): the shortest round-tripping digits, in plain notation for
// magnitudes in [1e-6, 1e21), in exponent notation otherwise.
func appendNumber(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v is not a JSON number", ErrNotCanonical, f)
	}
	if f == 0 {
		return append(b, '0'), nil
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	return fmt.Appendf(b, "%se%c%s", mant, sign, exp), nil
}

// b64 is unpadded base64url, as JWS encodes its parts.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
