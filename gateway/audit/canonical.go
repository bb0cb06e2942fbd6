package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The fields every event carries besides its attributes. An attribute
// whose key is one of these is renamed (see the package documentation).
const (
	FieldTime  = "time"
	FieldEvent = "event"
	FieldChain = "chain"
	FieldSeq   = "seq"
	FieldPrev  = "prev"
	FieldHash  = "hash"
	// FieldOmitted replaces the attributes of an event too large for one
	// line; its value is their encoded size in bytes.
	FieldOmitted = "attrs_omitted"
)

// MaxLineBytes bounds one event line, for the writer and the verifier.
const MaxLineBytes = 1 << 20

// maxAttrBytes bounds an event's encoded attributes, leaving room for the
// reserved fields so that every written line fits in MaxLineBytes.
const maxAttrBytes = MaxLineBytes - 4096

// maxDepth bounds the nesting of objects and arrays the verifier accepts;
// it is encoding/json's own limit, so whatever the handler wrote
// (attribute values pass through encoding/json) verifies.
const maxDepth = 10000

// member is one top-level field, encoded: `"key":value`.
type member struct {
	key string
	enc []byte
}

// encodeJSON writes v as compact JSON with HTML escaping off, the way the
// canonical form encodes every key and value.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
	return nil
}

// encodeMember encodes one top-level field.
func encodeMember(key string, v any) (member, error) {
	var buf bytes.Buffer
	if err := encodeJSON(&buf, key); err != nil {
		return member{}, err
	}
	buf.WriteByte(':')
	if err := encodeJSON(&buf, v); err != nil {
		return member{}, fmt.Errorf("field %q: %w", key, err)
	}
	return member{key: key, enc: buf.Bytes()}, nil
}

// encodeMembers encodes every field of obj, sorted by key, with one
// encoder and one buffer.
func encodeMembers(obj map[string]any) ([]member, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	write := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode appends a newline
		return nil
	}
	type span struct {
		key        string
		start, end int
	}
	spans := make([]span, 0, len(obj))
	for k, v := range obj {
		start := buf.Len()
		if err := write(k); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := write(v); err != nil {
			return nil, fmt.Errorf("field %q: %w", k, err)
		}
		spans = append(spans, span{k, start, buf.Len()})
	}
	all := buf.Bytes()
	ms := make([]member, len(spans), len(spans)+6)
	for i, sp := range spans {
		ms[i] = member{key: sp.key, enc: all[sp.start:sp.end:sp.end]}
	}
	sortMembers(ms)
	return ms, nil
}

// sortMembers orders members by the bytes of their keys.
func sortMembers(ms []member) {
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
}

// insertMember inserts m into ms, which is sorted as sortMembers sorts,
// keeping it sorted: the chain adds its few members to attributes that
// are sorted already, under the chain's lock, where a full sort per
// event was the larger part of the time the lock was held.
func insertMember(ms []member, m member) []member {
	i, _ := slices.BinarySearchFunc(ms, m.key, func(e member, k string) int { return strings.Compare(e.key, k) })
	return slices.Insert(ms, i, m)
}

// join writes the canonical object made of ms, leaving out the member
// named skip ("" leaves out nothing).
func join(ms []member, skip string) []byte {
	n := 2
	for _, m := range ms {
		n += len(m.enc) + 1
	}
	return appendJoined(make([]byte, 0, n), ms, skip)
}

// appendJoined appends what join returns to out.
func appendJoined(out []byte, ms []member, skip string) []byte {
	out = append(out, '{')
	first := true
	for _, m := range ms {
		if skip != "" && m.key == skip {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, m.enc...)
	}
	return append(out, '}')
}

// chainHash is the hex SHA-256 of the canonical encoding of ms without
// the hash field.
func chainHash(ms []member) string {
	sum := sha256.Sum256(join(ms, FieldHash))
	return hex.EncodeToString(sum[:])
}

// Canonical returns the canonical encoding of one event line and the hash
// it should carry: the line is parsed strictly, its hash field dropped and
// the rest re-encoded as described in the package documentation. It is
// what Verify recomputes for every line.
func Canonical(line []byte) (canonical []byte, hash string, err error) {
	obj, err := parseObject(line)
	if err != nil {
		return nil, "", err
	}
	ms, err := encodeMembers(obj)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return join(ms, FieldHash), chainHash(ms), nil
}

// parseObject parses one line as a single JSON object, strictly: valid
// UTF-8, no duplicate keys at any depth, bounded depth and size, nothing
// after the object. Numbers keep their literal text.
func parseObject(line []byte) (map[string]any, error) {
	if len(line) > MaxLineBytes {
		return nil, fmt.Errorf("%w: line longer than %d bytes", ErrMalformed, MaxLineBytes)
	}
	if !utf8.Valid(line) {
		return nil, fmt.Errorf("%w: invalid UTF-8", ErrMalformed)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	obj, err := parseMembers(dec, 1)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the object", ErrMalformed)
	}
	return obj, nil
}

// parseMembers reads an object's members up to its closing brace.
func parseMembers(dec *json.Decoder, depth int) (map[string]any, error) {
	obj := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is %T", tok)
		}
		if _, dup := obj[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		v, err := parseValue(dec, depth)
		if err != nil {
			return nil, err
		}
		obj[key] = v
	}
	_, err := dec.Token() // the closing brace
	return obj, err
}

// parseValue reads one value of any kind.
func parseValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	if d == '{' {
		return parseMembers(dec, depth+1)
	}
	arr := []any{}
	for dec.More() {
		v, err := parseValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	_, err = dec.Token() // the closing bracket
	return arr, err
}
