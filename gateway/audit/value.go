package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"
)

// The JSON data model every attribute is turned into before encoding, so
// that what the handler hashes is exactly what Verify re-parses: string
// (valid UTF-8), json.Number (the literal), bool, nil, []any and
// map[string]any.

// clean makes s valid UTF-8, replacing each invalid byte sequence with
// U+FFFD, so that encoding never rewrites it behind the hash's back.
func clean(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// put stores v under key in m. A key already taken (by an earlier
// attribute or a reserved field) becomes key#2, key#3, ...: nothing is
// overwritten and no object ever holds a key twice. It returns the key
// used.
func put(m map[string]any, key string, v any) string {
	key = clean(key)
	if _, taken := m[key]; !taken {
		m[key] = v
		return key
	}
	for n := 2; ; n++ {
		k := key + "#" + strconv.Itoa(n)
		if _, taken := m[k]; !taken {
			m[k] = v
			return k
		}
	}
}

// addAttr adds one resolved attribute to m, following slog's rules: an
// empty Attr is ignored, a group with no attributes is dropped, a group
// with an empty key is inlined.
func addAttr(m map[string]any, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() != slog.KindGroup {
		put(m, a.Key, jsonValue(a.Value))
		return
	}
	attrs := a.Value.Group()
	if a.Key == "" {
		for _, g := range attrs {
			addAttr(m, g)
		}
		return
	}
	sub := map[string]any{}
	for _, g := range attrs {
		addAttr(sub, g)
	}
	if len(sub) > 0 {
		put(m, a.Key, sub)
	}
}

// hasContent reports whether attrs would add anything to an object.
func hasContent(attrs []slog.Attr) bool {
	for _, a := range attrs {
		if !a.Equal(slog.Attr{}) {
			return true
		}
	}
	return false
}

// jsonValue turns a resolved, non-group slog value into the data model.
// Durations are integer nanoseconds and times RFC 3339 strings with
// nanoseconds, as slog.JSONHandler writes them; non-finite floats are
// strings.
func jsonValue(v slog.Value) any {
	switch v.Kind() {
	case slog.KindString:
		return clean(v.String())
	case slog.KindInt64:
		return json.Number(strconv.FormatInt(v.Int64(), 10))
	case slog.KindUint64:
		return json.Number(strconv.FormatUint(v.Uint64(), 10))
	case slog.KindFloat64:
		return floatValue(v.Float64())
	case slog.KindBool:
		return v.Bool()
	case slog.KindDuration:
		return json.Number(strconv.FormatInt(int64(v.Duration()), 10))
	case slog.KindTime:
		return v.Time().Format(time.RFC3339Nano)
	case slog.KindGroup:
		sub := map[string]any{}
		for _, g := range v.Group() {
			addAttr(sub, g)
		}
		return sub
	default:
		return anyValue(v.Any())
	}
}

// floatValue encodes f as encoding/json would, or as a string when JSON
// has no number for it.
func floatValue(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return json.Number(b)
}

// anyValue converts an arbitrary value through encoding/json, so the
// result is in the data model. A value that cannot be marshalled becomes
// a string saying so, as slog.JSONHandler does.
func anyValue(x any) any {
	switch t := x.(type) {
	case nil:
		return nil
	case string:
		return clean(t)
	case error:
		return clean(t.Error())
	case []string:
		out := make([]any, len(t))
		for i, s := range t {
			out[i] = clean(s)
		}
		return out
	}
	b, err := json.Marshal(x)
	if err != nil {
		return clean(fmt.Sprintf("!ERROR:%v", err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return clean(fmt.Sprintf("!ERROR:%v", err))
	}
	return out
}
