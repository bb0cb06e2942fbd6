package siem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Format is how audit events are rendered.
type Format string

// The formats.
const (
	// Canonical is capgate's own form, the one the hash chain is over.
	Canonical Format = "canonical"
	// OCSF is OCSF 1.8.0 JSON, one object per line.
	OCSF Format = "ocsf"
	// CEF is ArcSight Common Event Format, one line per event.
	CEF Format = "cef"
)

// OCSFVersion is the OCSF schema version records conform to.
const OCSFVersion = "1.8.0"

// ErrFormat is an unknown format name; ErrEvent a line that is not an
// audit event (not one JSON object with event, chain, seq and hash).
var (
	ErrFormat = errors.New("siem: unknown format")
	ErrEvent  = errors.New("siem: not an audit event")
)

// ParseFormat reads canonical, ocsf or cef; "" is canonical.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "":
		return Canonical, nil
	case Canonical, OCSF, CEF:
		return f, nil
	}
	return "", fmt.Errorf("%w %q: want canonical, ocsf or cef", ErrFormat, s)
}

// Renderer renders canonical audit lines in one format. The zero value
// is not usable; use NewRenderer.
type Renderer struct {
	format  Format
	version string
}

// NewRenderer returns a renderer for f; version is capgate's, written
// into every record's product.
func NewRenderer(f Format, version string) (*Renderer, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, err
	}
	if version == "" {
		version = "dev"
	}
	return &Renderer{format: f, version: version}, nil
}

// Render renders one canonical audit line (without its newline) and
// returns the record without a newline. A canonical renderer returns the
// line as it is, after checking it is an event.
func (r *Renderer) Render(line []byte) ([]byte, error) {
	e, err := parseEvent(line)
	if err != nil {
		return nil, err
	}
	switch r.format {
	case OCSF:
		return json.Marshal(r.ocsf(e))
	case CEF:
		return []byte(r.cef(e)), nil
	}
	return bytes.Clone(line), nil
}

// event is one parsed audit event.
type event struct {
	raw   map[string]any
	name  string
	chain string
	seq   uint64
	hash  string
	time  time.Time
}

// parseEvent parses a canonical line; numbers stay as written.
func parseEvent(line []byte) (event, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return event{}, fmt.Errorf("%w: not one JSON object", ErrEvent)
	}
	e := event{raw: raw, name: str(raw, "event"), chain: str(raw, "chain"), hash: str(raw, "hash")}
	n, _ := raw["seq"].(json.Number)
	seq, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil || e.name == "" || e.chain == "" || e.hash == "" {
		return event{}, fmt.Errorf("%w: event, chain, seq and hash are required", ErrEvent)
	}
	e.seq = seq
	if e.time, err = time.Parse(time.RFC3339Nano, str(raw, "time")); err != nil {
		return event{}, fmt.Errorf("%w: time is not RFC 3339", ErrEvent)
	}
	return e, nil
}

// str is m[k] when it is a string, else "".
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// first is the first non-empty string of m's keys.
func first(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// outcome is the event's decision word and whether it is a success.
func (e event) outcome() (string, bool) {
	if ok, isBool := e.raw["ok"].(bool); isBool {
		return map[bool]string{true: "ok", false: first(e.raw, "reason", "code")}[ok], ok
	}
	word := first(e.raw, "decision", "status", "code")
	switch word {
	case "", "issued", "allowed", "attenuated", "delegated", "revoked", "revoked_unconfirmed",
		"approved", "redeemed", "frozen", "unfrozen", "pending", "requested", "ok":
		return word, e.raw["code"] == nil
	}
	return word, false
}

// acting is the principal the event is about, most specific first.
func (e event) acting() string {
	return first(e.raw, "caller", "admin", "approver", "actor", "principal", "holder")
}

// target is the agent, server or host of the event.
func (e event) target() string { return first(e.raw, "agent", "server", "host") }

// capability is the capability id the event names.
func (e event) capability() string {
	if s := first(e.raw, "capability_id", "capabilityId"); s != "" {
		return s
	}
	if ids, ok := e.raw["capability_ids"].([]any); ok && len(ids) > 0 {
		s, _ := ids[0].(string)
		return s
	}
	return ""
}
