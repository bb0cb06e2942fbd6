package cardsig

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
)

// ErrNotCanonical is wrapped when a card's v1.0 members do not have the
// types the v1.0 schema gives them, so that no canonical form is certain.
var ErrNotCanonical = errors.New("cardsig: card does not fit the A2A v1.0 schema")

// Canonical returns the canonical form of card that A2A v1.0 signs (see
// the package documentation): its v1.0 members, defaults and empty
// values removed, signatures excluded, serialized with RFC 8785. card is
// read as its JSON encoding reads, and is not modified.
func Canonical(card map[string]any) ([]byte, error) {
	b, err := json.Marshal(card)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCanonical, err)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCanonical, err)
	}
	projected, err := project(agentCard(), decoded, "card")
	if err != nil {
		return nil, err
	}
	cleaned, ok := clean(projected)
	if !ok {
		return []byte("{}"), nil
	}
	return appendJCS(nil, cleaned)
}

// notCanonical is the error for the member at path.
func notCanonical(path, want string) error {
	return fmt.Errorf("%w: %s is not %s", ErrNotCanonical, path, want)
}

// lookup returns the value of f in obj: under its JSON name, else under
// its proto name; null is absent.
func lookup(obj map[string]any, f field) (any, bool) {
	for _, name := range []string{f.json, f.proto} {
		if v, ok := obj[name]; ok && name != "" && v != nil {
			return v, true
		}
	}
	return nil, false
}

// project reads v as message m and writes it as the v1.0 JSON form
// writes it: fields at their default omitted, unknown members dropped.
func project(m *message, v any, path string) (map[string]any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, notCanonical(path, "an object")
	}
	out := map[string]any{}
	for _, f := range m.fields {
		raw, ok := lookup(obj, f)
		if !ok {
			continue
		}
		w, keep, err := projectField(f, raw, path+"."+f.json)
		if err != nil {
			return nil, err
		}
		if keep {
			out[f.json] = w
		}
		if m.oneof {
			break
		}
	}
	return out, nil
}

// projectField reads one present field and says whether it is written.
func projectField(f field, raw any, path string) (any, bool, error) {
	switch f.kind {
	case kString:
		s, ok := raw.(string)
		if !ok {
			return nil, false, notCanonical(path, "a string")
		}
		return s, s != "", nil
	case kBool, kOptBool:
		b, ok := raw.(bool)
		if !ok {
			return nil, false, notCanonical(path, "a boolean")
		}
		return b, b || f.kind == kOptBool, nil
	case kStrings:
		list, ok := raw.([]any)
		for _, e := range list {
			if _, isStr := e.(string); !isStr {
				ok = false
			}
		}
		if !ok {
			return nil, false, notCanonical(path, "a list of strings")
		}
		return list, len(list) > 0, nil
	case kMessage:
		m, err := project(f.msg, raw, path)
		return m, err == nil, err
	case kMessages:
		return projectList(f, raw, path)
	case kMsgMap, kStrMap:
		return projectMap(f, raw, path)
	}
	obj, ok := raw.(map[string]any) // kStruct
	if !ok {
		return nil, false, notCanonical(path, "an object")
	}
	return obj, true, nil
}

func projectList(f field, raw any, path string) (any, bool, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, false, notCanonical(path, "a list")
	}
	out := make([]any, len(list))
	for i, e := range list {
		m, err := project(f.msg, e, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, false, err
		}
		out[i] = m
	}
	return out, len(out) > 0, nil
}

func projectMap(f field, raw any, path string) (any, bool, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, false, notCanonical(path, "an object")
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if f.kind == kStrMap {
			if _, isStr := v.(string); !isStr {
				return nil, false, notCanonical(path+"."+k, "a string")
			}
			out[k] = v
			continue
		}
		m, err := project(f.msg, v, path+"."+k)
		if err != nil {
			return nil, false, err
		}
		out[k] = m
	}
	return out, len(out) > 0, nil
}

// clean removes every empty string, null, empty list and empty object,
// recursively, as the SDKs do before serializing; ok is false when v
// itself is removed.
func clean(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		return x, x != ""
	case []any:
		var out []any
		for _, e := range x {
			if c, ok := clean(e); ok {
				out = append(out, c)
			}
		}
		return out, len(out) > 0
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range maps.All(x) {
			if c, ok := clean(e); ok {
				out[k] = c
			}
		}
		return out, len(out) > 0
	}
	return v, true
}
