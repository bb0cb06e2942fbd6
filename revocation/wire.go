package revocation

import (
	"fmt"
	"strconv"
	"strings"
)

// The Redis layout, under a configurable prefix P (default "capgate:"):
//
//	P rev:i:<id>         string "<until ms>", PX = time left; exists = revoked
//	P rev:p:<principal>  string "<before ms>", PX = time left
//	P rev:events         pub/sub channel (not a key)
//	P rev:epoch          string "<random epoch id>", no TTL: the marker
//	                     that the set above is complete (see epoch.go)
//
// Every key is a single key, so each Lua script touches one slot and the
// layout works unchanged on Redis Cluster. The events published are
//
//	i:<until ms>:<id>
//	p:<before ms>:<until ms>:<principal>
//
// An event only ever adds or extends a revocation: there is no message that
// removes one, so a forged event can deny but never allow.
const (
	idKind        = "rev:i:"
	principalKind = "rev:p:"
	eventChannel  = "rev:events"
	epochKind     = "rev:epoch"
)

// maxMilliDigits bounds a decimal millisecond field (math.MaxInt64 has 19).
const maxMilliDigits = 19

// keyspace names the keys and channel under one prefix.
type keyspace struct{ prefix string }

func (k keyspace) id(id string) string       { return k.prefix + idKind + id }
func (k keyspace) principal(p string) string { return k.prefix + principalKind + p }
func (k keyspace) channel() string           { return k.prefix + eventChannel }
func (k keyspace) epoch() string             { return k.prefix + epochKind }

// match is the SCAN pattern for every revocation key.
func (k keyspace) match() string { return escapeGlob(k.prefix) + "rev:[ip]:*" }

// parseKey splits a scanned key into its kind and validated name.
func (k keyspace) parseKey(key string) (principal bool, name string, err error) {
	rest, ok := strings.CutPrefix(key, k.prefix)
	if !ok {
		return false, "", fmt.Errorf("%w: key %q outside prefix", ErrCorrupt, key)
	}
	if name, ok = strings.CutPrefix(rest, idKind); ok {
		if err := validateID(name); err != nil {
			return false, "", fmt.Errorf("%w: key %q: %w", ErrCorrupt, key, err)
		}
		return false, name, nil
	}
	if name, ok = strings.CutPrefix(rest, principalKind); ok {
		if err := validatePrincipal(name); err != nil {
			return false, "", fmt.Errorf("%w: key %q: %w", ErrCorrupt, key, err)
		}
		return true, name, nil
	}
	return false, "", fmt.Errorf("%w: key %q of unknown kind", ErrCorrupt, key)
}

// escapeGlob quotes the characters SCAN MATCH treats as pattern syntax.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*?[]^-`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// parseMilli parses a non-negative decimal made of digits only: no sign, no
// space, no leading "+", at most maxMilliDigits digits.
func parseMilli(s string) (int64, error) {
	if s == "" || len(s) > maxMilliDigits {
		return 0, fmt.Errorf("%w: number %q", ErrCorrupt, s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%w: number %q", ErrCorrupt, s)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: number %q", ErrCorrupt, s)
	}
	return n, nil
}

// parseEvent parses a payload from the revocation channel.
func parseEvent(payload string) (entry, error) {
	kind, rest, _ := strings.Cut(payload, ":")
	switch kind {
	case "i":
		until, id, ok := strings.Cut(rest, ":")
		u, err := parseMilli(until)
		if !ok || err != nil || validateID(id) != nil {
			return entry{}, fmt.Errorf("%w: %.80q", ErrMalformedEvent, payload)
		}
		return entry{name: id, cutoff: cutoff{untilMs: u}}, nil
	case "p":
		before, rest, ok1 := strings.Cut(rest, ":")
		until, p, ok2 := strings.Cut(rest, ":")
		b, err1 := parseMilli(before)
		u, err2 := parseMilli(until)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || validatePrincipal(p) != nil {
			return entry{}, fmt.Errorf("%w: %.80q", ErrMalformedEvent, payload)
		}
		return entry{principal: true, name: p, cutoff: cutoff{beforeMs: b, untilMs: u}}, nil
	}
	return entry{}, fmt.Errorf("%w: %.80q", ErrMalformedEvent, payload)
}
