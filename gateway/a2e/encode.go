package a2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// Encode returns the JSON line for a message (without a line end): the
// envelope members first (type, id, the version under env.Key when it is
// not empty, ts), then the body's members. An empty env.Type is taken from the body; a
// different one is ErrTypeMismatch. HTML characters are not escaped.
func Encode(env Envelope, b Body) ([]byte, error) {
	switch {
	case b == nil:
		return nil, fmt.Errorf("%w: nil body", ErrTypeMismatch)
	case env.Type == "":
		env.Type = b.MessageType()
	case env.Type != b.MessageType():
		return nil, fmt.Errorf("%w: envelope %q, body %q", ErrTypeMismatch, env.Type, b.MessageType())
	}
	body, err := marshal(b)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(body) + 96)
	out.WriteString(`{"type":`)
	writeString(&out, env.Type)
	out.WriteString(`,"id":`)
	writeString(&out, env.ID)
	if env.Version != "" {
		key := env.Key
		if key == "" {
			key = KeyA2E
		}
		out.WriteString(`,"` + string(key) + `":`)
		writeString(&out, env.Version)
	}
	out.WriteString(`,"ts":`)
	ts := env.TS
	if math.IsNaN(ts) || math.IsInf(ts, 0) {
		ts = 0
	}
	out.WriteString(strconv.FormatFloat(ts, 'f', -1, 64))
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 1 {
		out.WriteByte(',')
		out.Write(rest)
	} else {
		out.WriteByte('}')
	}
	return out.Bytes(), nil
}

// Rewrite returns m re-encoded with the members in set replacing (or
// adding to) m's own; a nil value in set removes the member. A member whose
// name differs from a name in set only in case ("Auth_Token" for
// "auth_token") is removed too, so no parser, case-sensitive or not, can
// read the caller's value instead of the rewritten one. Every other
// member, known or not, is kept with its exact bytes. Members are written
// in name order. m itself is not changed.
func (m Message) Rewrite(set map[string]any) ([]byte, error) {
	out := maps.Clone(m.Members)
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	for have := range out {
		for name := range set {
			if have != name && strings.EqualFold(have, name) {
				delete(out, have)
			}
		}
	}
	for name, v := range set {
		if v == nil {
			delete(out, name)
			continue
		}
		raw, err := marshal(v)
		if err != nil {
			return nil, fmt.Errorf("a2e: rewriting member %q: %w", name, err)
		}
		out[name] = raw
	}
	return marshal(out)
}

// marshal is json.Marshal without HTML escaping and without the trailing
// newline of json.Encoder.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := marshal(s) // a string always marshals
	buf.Write(b)
}
