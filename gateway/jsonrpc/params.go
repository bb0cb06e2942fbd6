package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// UnmarshalParams decodes raw params strictly into v, which must be a
// non-nil pointer (ErrInvalidTarget otherwise). Every failure about the
// params themselves wraps ErrInvalidParams:
//   - params absent (nil raw), or not an object or array;
//   - raw failing the same checks Decode applies to a body (duplicate or
//     case-variant names, invalid UTF-8, syntax), also wrapped;
//   - a member that matches no field of the target struct, at any depth;
//   - a member whose name matches a field only case-insensitively:
//     encoding/json would accept "CapabilityID" for `json:"capabilityId"`,
//     but an upstream agent reading the same bytes would not, so the
//     gateway would authorise a value the agent never sees;
//   - a value of the wrong type.
//
// Numbers decoded into interface values become json.Number, so large
// integers keep their exact text.
func UnmarshalParams(raw json.RawMessage, v any) error {
	return unmarshalParams(raw, v, false)
}

// UnmarshalParams decodes r.Params strictly into v, exactly as the
// function UnmarshalParams does, with one pass fewer when it is safe:
// when r came from Decode and r.Params are still the bytes Decode
// checked, the text checks (syntax, UTF-8, depth, duplicate and
// case-variant names at any depth) already ran over the whole body,
// params included, within limits no looser than UnmarshalParams' own,
// so they are not run again. Every other check runs as before.
func (r Request) UnmarshalParams(v any) error {
	return unmarshalParams(r.Params, v, r.ParamsChecked())
}

// unmarshalParams is UnmarshalParams; checked says that raw already
// passed the checker within limits no looser than the ceilings.
func unmarshalParams(raw json.RawMessage, v any, checked bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("%w: got %T", ErrInvalidTarget, v)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return &MemberError{Member: paramsPath, Problem: "are absent"}
	}
	if len(raw) > MaxBodyBytesCeiling {
		return fmt.Errorf("%w: params larger than %d bytes", ErrInvalidParams, MaxBodyBytesCeiling)
	}
	if !checked {
		c := newChecker(raw, MaxDepthCeiling)
		if err := c.run(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidParams, err)
		}
	}
	if raw[0] != '{' && raw[0] != '[' {
		return &MemberError{Member: paramsPath, Problem: "must be an object or an array"}
	}
	if err := exactNames(raw, rv.Type().Elem(), 0); err != nil {
		return rooted(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return decodeError(raw, rv.Type().Elem(), err)
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// exactNames checks that every member of the validated value raw that
// encoding/json would decode into a struct field of t names that field
// exactly. Values of a type with its own UnmarshalJSON, or bound for an
// interface, are not looked into. Type mismatches are left for
// encoding/json to report.
func exactNames(raw []byte, t reflect.Type, depth int) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if depth > MaxDepthCeiling || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch {
	case t.Kind() == reflect.Struct && raw[0] == '{':
		return exactStructNames(raw, t, depth)
	case t.Kind() == reflect.Map && raw[0] == '{':
		it, _ := WalkObject(raw)
		for m, ok := it.Next(); ok; m, ok = it.Next() {
			if err := exactNames(m.Value, t.Elem(), depth+1); err != nil {
				return within(err, nameStep(unescaped(m)))
			}
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && raw[0] == '[':
		it, _ := WalkArray(raw)
		i := 0
		for elem, ok := it.Next(); ok; elem, ok = it.Next() {
			if err := exactNames(elem, t.Elem(), depth+1); err != nil {
				return within(err, indexStep(i))
			}
			i++
		}
	}
	return nil
}

func exactStructNames(raw []byte, t reflect.Type, depth int) error {
	var fieldBuf [16]field
	fields := jsonFields(t, fieldBuf[:0], 0)
	var buf [32]byte
	it, _ := WalkObject(raw)
	for {
		m, ok := it.Next()
		if !ok {
			return nil
		}
		name, v := m.Name, m.Value
		if m.Escaped {
			name = appendUnescaped(buf[:0], name)
		}
		f, found := findField(fields, name)
		switch {
		case !found && f.name != "":
			return within(atMember("must be spelled "+strconv.Quote(f.name)), nameStep(name))
		case !found:
			return within(atMember("unknown member"), nameStep(name))
		}
		if err := exactNames(v, f.typ, depth+1); err != nil {
			return within(err, nameStep(name))
		}
	}
}

// field is one struct field as encoding/json names it.
type field struct {
	name string
	typ  reflect.Type
}

// findField returns the field named exactly name. When there is none it
// returns, with found false, a field whose name matches case-insensitively,
// if any.
func findField(fields []field, name []byte) (f field, found bool) {
	for _, f := range fields {
		if f.name == string(name) {
			return f, true
		}
	}
	for _, f := range fields {
		if bytes.EqualFold([]byte(f.name), name) {
			return f, false
		}
	}
	return field{}, false
}

// maxEmbedding bounds how deep embedded structs are followed.
const maxEmbedding = 8

// jsonFields appends the fields encoding/json decodes into for struct t,
// following embedded structs as it does.
func jsonFields(t reflect.Type, out []field, depth int) []field {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			if depth < maxEmbedding {
				out = jsonFields(ft, out, depth+1)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, field{name: name, typ: sf.Type})
	}
	return out
}
