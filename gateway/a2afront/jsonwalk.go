package a2afront

import (
	"bytes"
	"encoding/json"
	"slices"
)

// mapStrings applies fn to every string value in the JSON text raw (object
// keys are left alone) and returns the text re-encoded, or raw itself when
// fn changed nothing. The first error fn returns is returned.
func mapStrings(raw json.RawMessage, fn func(string) (string, error)) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v, changed, err := walkStrings(v, fn)
	if err != nil || !changed {
		return raw, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func walkStrings(v any, fn func(string) (string, error)) (any, bool, error) {
	switch t := v.(type) {
	case string:
		out, err := fn(t)
		return out, err == nil && out != t, err
	case []any:
		return walkSlice(t, fn)
	case map[string]any:
		changed := false
		for k, e := range t {
			out, ch, err := walkStrings(e, fn)
			if err != nil {
				return nil, false, err
			}
			t[k], changed = out, changed || ch
		}
		return t, changed, nil
	}
	return v, false, nil
}

func walkSlice(t []any, fn func(string) (string, error)) (any, bool, error) {
	changed := false
	for i, e := range t {
		out, ch, err := walkStrings(e, fn)
		if err != nil {
			return nil, false, err
		}
		t[i], changed = out, changed || ch
	}
	return t, changed, nil
}

// mapAnswer rewrites, in every string value of the valid JSON text raw
// (object keys are left alone), each whole-word id of pairs, and returns
// the text with only the strings that changed re-encoded, members in
// their order: raw itself when nothing changed. Every value is seen, a
// duplicate member's too. A refusing pair fails it with errUnmappedID.
func mapAnswer(raw json.RawMessage, pairs []idPair) (json.RawMessage, error) {
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		start, end := i, stringEnd(raw, i)
		i = end - 1
		if j := skipSpace(raw, end); j < len(raw) && raw[j] == ':' {
			continue
		}
		s, changed, refused := mapLiteral(raw[start:end], pairs)
		if refused {
			return nil, errUnmappedID
		}
		if changed {
			if out == nil {
				out = make([]byte, 0, len(raw)+len(raw)/4)
			}
			out = append(out, raw[last:start]...)
			out = appendJSONString(out, s)
			last = end
		}
	}
	if out == nil {
		return raw, nil
	}
	return append(out, raw[last:]...), nil
}

// mapLiteral is replaceWords on the string a JSON string literal stands
// for; a plain literal that contains no id is not even decoded.
func mapLiteral(lit []byte, pairs []idPair) (s string, changed, refused bool) {
	inner := lit[1 : len(lit)-1]
	if plainLiteral(inner) {
		if !slices.ContainsFunc(pairs, func(p idPair) bool { return bytes.Contains(inner, []byte(p.old)) }) {
			return "", false, false
		}
		s = string(inner)
	} else {
		s, _ = decodeString(lit)
	}
	out, refused := replaceWords(s, pairs)
	return out, !refused && out != s, refused
}
