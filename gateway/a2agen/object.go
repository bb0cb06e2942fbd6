package a2agen

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// object is one JSON object being translated: its members by name, the
// names already consumed, and its path for errors.
type object struct {
	path    string
	members map[string]json.RawMessage
	used    map[string]bool
}

// isNull reports whether raw is JSON null (an absent member, as ProtoJSON
// and v0.3's optional members read it).
func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// readObject decodes raw as an object; null is an empty object.
func readObject(raw json.RawMessage, path string) (*object, error) {
	o := &object{path: path, members: map[string]json.RawMessage{}, used: map[string]bool{}}
	if len(raw) == 0 || isNull(raw) {
		return o, nil
	}
	if err := json.Unmarshal(raw, &o.members); err != nil {
		return nil, malformed(path, "not a JSON object")
	}
	return o, nil
}

// at is the path of member name.
func (o *object) at(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// take returns member name unless it is absent or null, and marks it used.
func (o *object) take(name string) (json.RawMessage, bool) {
	o.used[name] = true
	raw, ok := o.members[name]
	if !ok || isNull(raw) {
		return nil, false
	}
	return raw, true
}

// done refuses the first member that was not consumed, in name order.
func (o *object) done() error {
	var left []string
	for name := range o.members {
		if !o.used[name] {
			left = append(left, name)
		}
	}
	if len(left) == 0 {
		return nil
	}
	slices.Sort(left)
	return untranslatable(o.at(left[0]), "the other A2A generation has no such member")
}

// str reads an optional string member; "" when absent.
func (o *object) str(name string) (string, error) {
	raw, ok := o.take(name)
	if !ok {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", malformed(o.at(name), "not a string")
	}
	return s, nil
}

// required reads a string member that must be present and non-empty.
func (o *object) required(name string) (string, error) {
	s, err := o.str(name)
	if err == nil && s == "" {
		err = malformed(o.at(name), "required")
	}
	return s, err
}

// strings reads an optional array of strings; nil when absent or empty.
func (o *object) strings(name string) ([]string, error) {
	raw, ok := o.take(name)
	if !ok {
		return nil, nil
	}
	var out []string
	if json.Unmarshal(raw, &out) != nil {
		return nil, malformed(o.at(name), "not an array of strings")
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// boolean reads an optional boolean member.
func (o *object) boolean(name string) (value, present bool, err error) {
	raw, ok := o.take(name)
	if !ok {
		return false, false, nil
	}
	if json.Unmarshal(raw, &value) != nil {
		return false, false, malformed(o.at(name), "not a boolean")
	}
	return value, true, nil
}

// integer reads an optional int32 member, written as a JSON number or, as
// ProtoJSON allows, as a string of one.
func (o *object) integer(name string) (value int32, present bool, err error) {
	raw, ok := o.take(name)
	if !ok {
		return 0, false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	n, perr := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 32)
	if perr != nil {
		return 0, false, malformed(o.at(name), "not a 32-bit integer")
	}
	return int32(n), true, nil
}

// metadata reads an optional member whose value must be a JSON object,
// copied as it is.
func (o *object) metadata(name string) (json.RawMessage, error) {
	raw, ok := o.take(name)
	if !ok {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, malformed(o.at(name), "not a JSON object")
	}
	return raw, nil
}

// list reads an optional array member as its elements.
func (o *object) list(name string) ([]json.RawMessage, error) {
	raw, ok := o.take(name)
	if !ok {
		return nil, nil
	}
	var out []json.RawMessage
	if json.Unmarshal(raw, &out) != nil {
		return nil, malformed(o.at(name), "not an array")
	}
	return out, nil
}

// elem is the path of the i-th element of the list member name.
func (o *object) elem(name string, i int) string {
	return o.at(name) + "[" + strconv.Itoa(i) + "]"
}

// out is an object being written: members set only when they carry a
// value, encoded with sorted names.
type out map[string]any

// set sets name to v unless v is empty: "", nil, an empty list, or a nil
// raw value.
func (w out) set(name string, v any) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return
		}
	case []string:
		if len(x) == 0 {
			return
		}
	case []any:
		if len(x) == 0 {
			return
		}
	case json.RawMessage:
		if x == nil {
			return
		}
	case nil:
		return
	}
	w[name] = v
}

// encode marshals w; its values always encode.
func (w out) encode() json.RawMessage {
	b, err := json.Marshal(map[string]any(w))
	if err != nil {
		panic("a2agen: a translated object does not encode: " + err.Error())
	}
	return b
}
