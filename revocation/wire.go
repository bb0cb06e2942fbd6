package revocation

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// The Redis layout, under a configurable prefix P (default "capgate:"):
//
//	P rev:i:<id>         string "<until ms>", PX = time left; exists = revoked
//	P rev:p:<principal>  string "<before ms>", PX = time left
//	P rev:events         pub/sub channel (not a key)
//	P rev:acks           pub/sub channel of acknowledgements (not a key)
//	P rev:epoch          string "<random epoch id>", no TTL: the marker
//	                     that the set above is complete (see epoch.go)
//	P rev:replicas       hash "<replica id>" -> "<lease deadline, ms of the
//	                     Redis clock>": the Synced replicas that may be
//	                     answering from memory (see registry.go)
//
// Every key is a single key, so each Lua script touches one slot and the
// layout works unchanged on Redis Cluster. The events published are
//
//	i:<until ms>:<id>
//	p:<before ms>:<until ms>:<principal>
//	n:<nonce>:<one of the two above>
//
// The third form asks every Synced replica to acknowledge the event once
// it holds it, by publishing "<nonce>:<replica id>" on rev:acks; nonces and
// replica ids are 32 lowercase hex digits. A replica from before
// acknowledgements finds "n:" malformed and resyncs, which is safe.
//
// An event only ever adds or extends a revocation: there is no message that
// removes one, so a forged event can deny but never allow.
const (
	idKind        = "rev:i:"
	principalKind = "rev:p:"
	eventChannel  = "rev:events"
	ackChannel    = "rev:acks"
	epochKind     = "rev:epoch"
	registryKind  = "rev:replicas"
)

// maxMilliDigits bounds a decimal millisecond field (math.MaxInt64 has 19).
const maxMilliDigits = 19

// keyspace names the keys and channel under one prefix.
type keyspace struct{ prefix string }

func (k keyspace) id(id string) string       { return k.prefix + idKind + id }
func (k keyspace) principal(p string) string { return k.prefix + principalKind + p }
func (k keyspace) channel() string           { return k.prefix + eventChannel }
func (k keyspace) acks() string              { return k.prefix + ackChannel }
func (k keyspace) epoch() string             { return k.prefix + epochKind }
func (k keyspace) registry() string          { return k.prefix + registryKind }

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

// event is one parsed message of the revocation channel: the entry, and
// the nonce to acknowledge it with ("" when none was asked for).
type event struct {
	entry
	nonce string
}

// parseEvent parses a payload from the revocation channel.
func parseEvent(payload string) (event, error) {
	var ev event
	rest := payload
	if tagged, ok := strings.CutPrefix(payload, "n:"); ok {
		nonce, inner, ok := strings.Cut(tagged, ":")
		if !ok || !isToken(nonce) {
			return event{}, fmt.Errorf("%w: %.80q", ErrMalformedEvent, payload)
		}
		ev.nonce, rest = nonce, inner
	}
	e, ok := parseEntry(rest)
	if !ok {
		return event{}, fmt.Errorf("%w: %.80q", ErrMalformedEvent, payload)
	}
	ev.entry = e
	return ev, nil
}

// parseEntry parses an event without its nonce: "i:…" or "p:…".
func parseEntry(s string) (entry, bool) {
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "i":
		until, id, ok := strings.Cut(rest, ":")
		u, err := parseMilli(until)
		if !ok || err != nil || validateID(id) != nil {
			return entry{}, false
		}
		return entry{name: id, cutoff: cutoff{untilMs: u}}, true
	case "p":
		before, rest, ok1 := strings.Cut(rest, ":")
		until, p, ok2 := strings.Cut(rest, ":")
		b, err1 := parseMilli(before)
		u, err2 := parseMilli(until)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || validatePrincipal(p) != nil {
			return entry{}, false
		}
		return entry{principal: true, name: p, cutoff: cutoff{beforeMs: b, untilMs: u}}, true
	}
	return entry{}, false
}

// formatAck is the acknowledgement replica publishes for nonce.
func formatAck(nonce, replica string) string { return nonce + ":" + replica }

// parseAck parses a payload from the acknowledgement channel:
// "<nonce>:<replica id>".
func parseAck(payload string) (nonce, replica string, err error) {
	nonce, replica, ok := strings.Cut(payload, ":")
	if !ok || !isToken(nonce) || !isToken(replica) {
		return "", "", fmt.Errorf("%w: ack %.80q", ErrMalformedEvent, payload)
	}
	return nonce, replica, nil
}

// tokenBytes is the length of the random part of nonces, replica ids and
// epoch markers; tokenLength is that of their hex form.
const (
	tokenBytes  = 16
	tokenLength = 2 * tokenBytes
)

// newToken returns a random nonce, replica id or epoch marker.
func newToken() string {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// isToken reports whether s is tokenLength lowercase hex digits, as
// newToken makes them.
func isToken(s string) bool {
	if len(s) != tokenLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
