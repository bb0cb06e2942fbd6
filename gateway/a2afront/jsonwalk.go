package a2afront

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/capgate/capgate/gateway/enforce"
)

// mapStrings applies fn to every string in the JSON text raw, values and
// object keys alike (an agent may key an object by a resource id), and
// returns the text re-encoded, or raw itself when fn changed nothing. The
// first error fn returns is returned; a key fn renames to another key of
// the same object is errKeyCollision.
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
		return walkObject(t, fn)
	}
	return v, false, nil
}

// errKeyCollision refuses an object two of whose keys map to the same.
var errKeyCollision = errors.New("a2a front: two keys of an object map to the same")

func walkObject(t map[string]any, fn func(string) (string, error)) (any, bool, error) {
	out := make(map[string]any, len(t))
	changed := false
	for k, e := range t {
		nk, err := fn(k)
		if err != nil {
			return nil, false, err
		}
		v, ch, err := walkStrings(e, fn)
		if err != nil {
			return nil, false, err
		}
		if _, dup := out[nk]; dup {
			return nil, false, errKeyCollision
		}
		out[nk], changed = v, changed || ch || nk != k
	}
	return out, changed, nil
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

// mapAnswer rewrites, in every string of the valid JSON text raw (values
// and object keys alike), each id of the map, and returns
// the text with only the strings that changed re-encoded, members in
// their order: raw itself when nothing changed. Every value is seen, a
// duplicate member's too. A refusing pair fails it with errUnmappedID.
func mapAnswer(raw json.RawMessage, ids *enforce.IDMap) (json.RawMessage, error) {
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		start, end := i, stringEnd(raw, i)
		i = end - 1
		s, changed, refused := mapLiteral(raw[start:end], ids)
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

// mapLiteral is the map's Replace on the string a JSON string literal
// stands for; a plain literal that contains no id is not even decoded.
func mapLiteral(lit []byte, ids *enforce.IDMap) (s string, changed, refused bool) {
	inner := lit[1 : len(lit)-1]
	if plainLiteral(inner) {
		if !ids.In(inner) {
			return "", false, false
		}
		s = string(inner)
	} else {
		s, _ = decodeString(lit)
	}
	out, refused := ids.Replace(s)
	return out, !refused && out != s, refused
}
