package a2afront

import (
	"bytes"
	"encoding/json"
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
