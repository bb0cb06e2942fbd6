package a2afront

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// What the front reads of the strings of a JSON text: every string
// rewritten (mapStrings decodes the text, mapAnswer walks it), every
// literal visited, a value read as a string, the whitespace between
// literals. What is walked is walked by jsonrpc's walk, on text the
// codec or the answer check accepted.

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

// stringValue decodes the JSON value raw into a string exactly as
// json.Unmarshal does (null leaves it empty), without its allocations
// when the literal has no escape.
func stringValue(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "", true
	}
	return jsonrpc.Unquote(raw)
}
