package a2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Decoding limits.
const (
	// DefaultMaxLineBytes is the line limit DecodeLine applies when given
	// a limit of zero or less.
	DefaultMaxLineBytes = 1 << 20
	// MaxDepth is the deepest nesting of objects and arrays accepted,
	// counting the message object itself.
	MaxDepth = 64
	// MaxIDLength bounds the id and req_id members.
	MaxIDLength = 256
)

// Message is one decoded A2E line.
type Message struct {
	Envelope
	// Body is the typed message, a pointer to one of this package's
	// structs (*HandshakeReq, *ToolCallReq, …), or *Generic for a type in
	// a capability namespace that has no struct here.
	Body Body
	// Raw is the line as received, without surrounding whitespace and the
	// line end. Forward these bytes, not a re-encoding.
	Raw []byte
	// Members holds every top-level member, known or not, under its exact
	// name. It is the message's own map; Rewrite copies it.
	Members map[string]json.RawMessage
}

// DecodeLine decodes one NDJSON line (a trailing "\n" or "\r\n" is
// allowed). maxBytes bounds the line without its line end; zero or less
// means DefaultMaxLineBytes. The error wraps exactly one of ErrTooLarge,
// ErrParse or ErrInvalidMessage.
func DecodeLine(line []byte, maxBytes int) (Message, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxLineBytes
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	if len(line) > maxBytes {
		return Message{}, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(line), maxBytes)
	}
	members, raw, err := decodeObject(line)
	if err != nil {
		return Message{}, err
	}
	env, err := decodeEnvelope(members)
	if err != nil {
		return Message{}, err
	}
	body := newBody(env.Type)
	if body == nil {
		body = &Generic{Type: env.Type}
	}
	if err := decodeMembers(members, body); err != nil {
		return Message{}, fmt.Errorf("%w: %s: %w", ErrInvalidMessage, env.Type, err)
	}
	return Message{Envelope: env, Body: body, Raw: raw, Members: members}, nil
}

// decodeObject checks line strictly and splits it into its members.
func decodeObject(line []byte) (map[string]json.RawMessage, []byte, error) {
	raw := bytes.Trim(line, " \t\r\n")
	switch {
	case len(raw) == 0:
		return nil, nil, fmt.Errorf("%w: empty line", ErrParse)
	case raw[0] != '{':
		return nil, nil, fmt.Errorf("%w: a message must be a JSON object", ErrParse)
	case depthExceeds(raw, MaxDepth):
		return nil, nil, fmt.Errorf("%w: nesting deeper than %d", ErrParse, MaxDepth)
	}
	var members map[string]json.RawMessage
	if err := jsonrpc.UnmarshalParams(raw, &members); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	return members, raw, nil
}

// depthExceeds reports whether the JSON text b nests arrays and objects
// deeper than max, as the codec's strict check finds it: the one walk of
// JSON text the gateway has. A text the check refuses for another reason
// is left to the decoding that follows, which refuses it too.
func depthExceeds(b []byte, max int) bool {
	s, err := jsonrpc.NewStrict(max, nil)
	if err != nil {
		panic("a2e: " + err.Error()) // MaxDepth is within the codec's ceiling
	}
	return errors.Is(s.Check(b), jsonrpc.ErrTooDeep)
}

// decodeEnvelope reads type, id, ts and the version by exact name.
func decodeEnvelope(m map[string]json.RawMessage) (Envelope, error) {
	var env Envelope
	typ, err := stringMember(m, "type", true)
	if err != nil {
		return env, err
	}
	if !KnownType(typ) {
		return env, fmt.Errorf("%w: unknown type %s", ErrInvalidMessage, clip(typ))
	}
	env.Type = typ
	if env.ID, err = stringMember(m, "id", true); err != nil {
		return env, err
	}
	if len(env.ID) > MaxIDLength {
		return env, fmt.Errorf("%w: id longer than %d bytes", ErrInvalidMessage, MaxIDLength)
	}
	if env.TS, err = tsMember(m); err != nil {
		return env, err
	}
	return env, decodeVersion(m, &env)
}

func decodeVersion(m map[string]json.RawMessage, env *Envelope) error {
	a, err := stringMember(m, string(KeyA2E), false)
	if err != nil {
		return err
	}
	v, err := stringMember(m, string(KeyVersion), false)
	if err != nil {
		return err
	}
	_, hasA := m[string(KeyA2E)]
	_, hasV := m[string(KeyVersion)]
	switch {
	case hasA && hasV && a != v:
		return fmt.Errorf("%w: members a2e %s and version %s disagree", ErrInvalidMessage, clip(a), clip(v))
	case hasA:
		env.Version, env.Key = a, KeyA2E
	case hasV:
		env.Version, env.Key = v, KeyVersion
	}
	return nil
}

// stringMember returns member name as a string. An absent member is ""
// (an error when required); a present one must be a JSON string, and a
// required one must not be empty.
func stringMember(m map[string]json.RawMessage, name string, required bool) (string, error) {
	raw, ok := m[name]
	if !ok {
		if required {
			return "", fmt.Errorf("%w: member %q is missing", ErrInvalidMessage, name)
		}
		return "", nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%w: member %q must be a string", ErrInvalidMessage, name)
	}
	if required && s == "" {
		return "", fmt.Errorf("%w: member %q is empty", ErrInvalidMessage, name)
	}
	return s, nil
}

func tsMember(m map[string]json.RawMessage) (float64, error) {
	raw, ok := m["ts"]
	if !ok {
		return 0, nil
	}
	ts, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(ts, 0) || ts < 0 {
		return 0, fmt.Errorf("%w: member \"ts\" must be a non-negative number of seconds", ErrInvalidMessage)
	}
	return ts, nil
}

// decodeMembers fills the fields of the struct body points to from the
// members named exactly by their json tags. A member that is absent or
// null leaves the field zero; a field tagged a2e:"required" must be
// present and not null.
func decodeMembers(m map[string]json.RawMessage, body Body) error {
	v := reflect.ValueOf(body).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		raw, ok := m[name]
		if !ok || string(raw) == "null" {
			if f.Tag.Get("a2e") == "required" {
				return fmt.Errorf("member %q is missing", name)
			}
			continue
		}
		if err := decodeField(raw, v.Field(i)); err != nil {
			return fmt.Errorf("member %q: %w", name, err)
		}
	}
	if s, err := stringMember(m, "req_id", false); err == nil && len(s) > MaxIDLength {
		return fmt.Errorf("member \"req_id\" longer than %d bytes", MaxIDLength)
	}
	return nil
}

// decodeField decodes raw into the field f. Numbers bound for interface
// values become json.Number, so large integers keep their exact text.
func decodeField(raw []byte, f reflect.Value) error {
	switch k := f.Kind(); {
	case k == reflect.String || k == reflect.Bool || k == reflect.Int || k == reflect.Int64 || k == reflect.Float64,
		k == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		return json.Unmarshal(raw, f.Addr().Interface())
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(f.Addr().Interface())
}

// jsonName returns the member name of an exported struct field, or "".
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if !f.IsExported() || tag == "-" {
		return ""
	}
	name, _, _ := bytes.Cut([]byte(tag), []byte(","))
	if len(name) == 0 {
		return f.Name
	}
	return string(name)
}

// ReqID returns the req_id member when it is a string, else "".
func (m Message) ReqID() string {
	s, err := stringMember(m.Members, "req_id", false)
	if err != nil {
		return ""
	}
	return s
}

// clip quotes s for an error message, cut to 64 bytes.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
