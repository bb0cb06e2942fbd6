package jsonrpc

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"time"
)

// When encoding/json refuses params, its error names Go: "cannot
// unmarshal number into Go struct field RequestParams.grants of type
// string". The caller wrote JSON, so the refusal is worded again from a
// walk over the params and the target type, which finds the member at
// fault and says what it must be in JSON's words. The walk runs only on
// the refusal path; what it accepts encoding/json accepts too, so a
// refusal it cannot place is worded without naming a member.

var (
	timeType            = reflect.TypeFor[time.Time]()
	numberType          = reflect.TypeFor[json.Number]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodeError words err, encoding/json's refusal of the params raw for a
// value of type t, as a *MemberError.
func decodeError(raw []byte, t reflect.Type, err error) error {
	if e := valueError(raw, t, 0); e != nil {
		return rooted(e)
	}
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return rooted(&MemberError{Member: "." + te.Field, Problem: "has a value of the wrong type"})
	}
	return rooted(atMember("are not valid"))
}

// valueError returns the *MemberError of the first value in text that
// encoding/json would refuse to decode into t, or nil.
func valueError(text []byte, t reflect.Type, depth int) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if text[0] == 'n' || depth > MaxDepthCeiling {
		return nil
	}
	switch pt := reflect.PointerTo(t); {
	case t == timeType:
		var tm time.Time
		if text[0] != '"' || tm.UnmarshalJSON(text) != nil {
			return atMember("must be a time in RFC 3339 format, as a string")
		}
		return nil
	case t == numberType:
		return numberError(text)
	case pt.Implements(unmarshalerType):
		if reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(text) != nil {
			return atMember("is not a valid value")
		}
		return nil
	case pt.Implements(textUnmarshalerType):
		return kindError(text, '"', "a string")
	}
	return kindValueError(text, t, depth)
}

// kindValueError is valueError for a type without a decoder of its own.
func kindValueError(text []byte, t reflect.Type, depth int) error {
	switch t.Kind() {
	case reflect.String:
		return kindError(text, '"', "a string")
	case reflect.Bool:
		if text[0] != 't' && text[0] != 'f' {
			return atMember("must be a boolean, not " + jsonKind(text))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if jsonKind(text) != "a number" {
			return atMember("must be a number, not " + jsonKind(text))
		}
		if _, err := strconv.ParseInt(string(text), 10, t.Bits()); err != nil {
			return atMember("must be a whole number in range")
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if jsonKind(text) != "a number" {
			return atMember("must be a number, not " + jsonKind(text))
		}
		if _, err := strconv.ParseUint(string(text), 10, t.Bits()); err != nil {
			return atMember("must be a whole number, not negative, in range")
		}
	case reflect.Float32, reflect.Float64:
		if jsonKind(text) != "a number" {
			return atMember("must be a number, not " + jsonKind(text))
		}
		if _, err := strconv.ParseFloat(string(text), t.Bits()); err != nil {
			return atMember("must be a number in range")
		}
	case reflect.Slice, reflect.Array:
		return elementsError(text, t, depth)
	case reflect.Map, reflect.Struct:
		return membersError(text, t, depth)
	}
	return nil
}

// kindError refuses text unless it opens with open, the first byte of
// kind.
func kindError(text []byte, open byte, kind string) error {
	if text[0] != open {
		return atMember("must be " + kind + ", not " + jsonKind(text))
	}
	return nil
}

// numberError checks a value for a json.Number: a number, or a string
// holding one.
func numberError(text []byte) error {
	s := string(text)
	if text[0] == '"' {
		var err error
		if s, err = strconv.Unquote(s); err != nil {
			return atMember("must be a number, not a string")
		}
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil && !isRangeError(err) {
		return atMember("must be a number, not " + jsonKind(text))
	}
	return nil
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// elementsError is valueError for a slice or an array.
func elementsError(text []byte, t reflect.Type, depth int) error {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return kindError(text, '"', "a base64 string")
	}
	it, ok := WalkArray(text)
	if !ok {
		return atMember("must be an array, not " + jsonKind(text))
	}
	i := 0
	for elem, more := it.Next(); more; elem, more = it.Next() {
		if err := valueError(elem, t.Elem(), depth+1); err != nil {
			return within(err, indexStep(i))
		}
		i++
	}
	return nil
}

// membersError is valueError for a map or a struct. Member names were
// checked before the decoder ran, so a member that names no field is
// not met here; one that is, is skipped.
func membersError(text []byte, t reflect.Type, depth int) error {
	it, ok := WalkObject(text)
	if !ok {
		return atMember("must be an object, not " + jsonKind(text))
	}
	isStruct := t.Kind() == reflect.Struct
	var fields []field
	if isStruct {
		fields = jsonFields(t, nil, 0)
	}
	for m, more := it.Next(); more; m, more = it.Next() {
		name := unescaped(m)
		var vt reflect.Type
		if !isStruct {
			vt = t.Elem()
		} else if f, found := findField(fields, name); found {
			vt = f.typ
		} else {
			continue
		}
		if err := valueError(m.Value, vt, depth+1); err != nil {
			return within(err, nameStep(name))
		}
	}
	return nil
}
