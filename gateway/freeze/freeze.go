package freeze

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is what an entry freezes.
type Kind string

// The kinds of entries.
const (
	// Agent is an agent, A2A, A2E or MCP, by its configured name.
	Agent Kind = "agent"
	// Principal is a caller, by its principal id.
	Principal Kind = "principal"
)

// Bounds on an entry's text.
const (
	MaxName   = 1024
	MaxReason = 1024
)

// Errors of the set.
var (
	// ErrInvalid is a change the set refuses: an unknown kind, an empty
	// or overlong name, or no reason.
	ErrInvalid = errors.New("freeze: invalid change")
	// ErrNotFrozen is Unfreeze's answer for what is not frozen.
	ErrNotFrozen = errors.New("freeze: not frozen")
	// ErrUnavailable is wrapped when the shared copy cannot be read or
	// written: Check cannot answer, or a change is held only by this
	// replica (it is written back at the next merge that reaches Redis).
	ErrUnavailable = errors.New("freeze: store unavailable")
)

// Entry is the latest change an operator made to one name.
type Entry struct {
	Kind   Kind   `json:"kind"`
	Name   string `json:"name"`
	Frozen bool   `json:"frozen"`
	// By is the operator's principal id; Reason why they did it.
	By     string `json:"by"`
	Reason string `json:"reason"`
	// At is when, to the millisecond; Nonce orders two changes of the
	// same millisecond.
	At    time.Time `json:"at"`
	Nonce string    `json:"nonce"`
}

// key is the entry's name in the set: "kind:name".
func (e Entry) key() string { return string(e.Kind) + ":" + e.Name }

// versionLen is the length of version's result.
const versionLen = 16 + 1 + 32

// version orders changes to one name: the time in zero-padded Unix
// milliseconds, then the nonce, so that comparing the strings compares
// the changes (the Redis script does just that).
func (e Entry) version() string {
	return fmt.Sprintf("%016d:%s", e.At.UnixMilli(), e.Nonce)
}

// newer reports whether e is a later change than o.
func (e Entry) newer(o Entry) bool { return e.version() > o.version() }

// check validates an entry read or about to be written.
func (e Entry) check() error {
	switch {
	case e.Kind != Agent && e.Kind != Principal:
		return fmt.Errorf("%w: kind %q is neither agent nor principal", ErrInvalid, e.Kind)
	case e.Name == "" || len(e.Name) > MaxName || !utf8.ValidString(e.Name):
		return fmt.Errorf("%w: a name of 1 to %d bytes of UTF-8 is required", ErrInvalid, MaxName)
	case strings.TrimSpace(e.Reason) == "" || len(e.Reason) > MaxReason || !utf8.ValidString(e.Reason):
		return fmt.Errorf("%w: a reason of 1 to %d bytes of UTF-8 is required", ErrInvalid, MaxReason)
	case len(e.Nonce) != 32 || e.At.IsZero() || len(e.By) > MaxName:
		return fmt.Errorf("%w: a malformed entry", ErrInvalid)
	}
	return nil
}

// ParseKind reads "agent" or "principal".
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Agent, Principal:
		return k, nil
	}
	return "", fmt.Errorf("%w: kind %q is neither agent nor principal", ErrInvalid, s)
}

// newNonce returns 32 random hex digits.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// table is one copy of the set, keyed by Entry.key. It is not safe for
// concurrent use: Set guards it.
type table map[string]Entry

// merge keeps e if it is newer than what t holds for its name, and
// reports whether it did.
func (t table) merge(e Entry) bool {
	if cur, ok := t[e.key()]; ok && !e.newer(cur) {
		return false
	}
	t[e.key()] = e
	return true
}

// frozen returns the frozen entries, sorted by kind then name.
func (t table) frozen() []Entry {
	var out []Entry
	for _, e := range t {
		if e.Frozen {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}
