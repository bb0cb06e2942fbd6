package a2e

import (
	"math"
	"time"
)

// VersionKey names the member that carries the protocol version.
type VersionKey string

// The two spellings of the version member.
const (
	// KeyA2E is "a2e", the spelling of the A2E specification.
	KeyA2E VersionKey = "a2e"
	// KeyVersion is "version", the spelling some SDKs use.
	KeyVersion VersionKey = "version"
)

// Version1 is the protocol version this package speaks.
const Version1 = "1.0"

// Envelope holds the members every A2E message carries.
type Envelope struct {
	// Type is the message type, e.g. "tool/call/req".
	Type string
	// ID is the message id (a UUID in the SDK).
	ID string
	// TS is the send time in seconds since the Unix epoch.
	TS float64
	// Version is the protocol version, from "a2e" or "version"; empty
	// when the message carries neither.
	Version string
	// Key says which member carried Version; empty when neither did.
	Key VersionKey
}

// NewEnvelope returns an envelope for a message of type typ written at t,
// carrying version under key (KeyA2E when key is empty).
func NewEnvelope(typ, id string, t time.Time, key VersionKey, version string) Envelope {
	if key == "" {
		key = KeyA2E
	}
	return Envelope{Type: typ, ID: id, TS: Timestamp(t), Version: version, Key: key}
}

// Timestamp converts t to A2E seconds, rounded to the microsecond so the
// value prints compactly and survives a float64 round trip.
func Timestamp(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return math.Round(float64(t.UnixMicro())) / 1e6
}

// Time converts TS back to a time.Time; the zero TS gives the zero time.
func (e Envelope) Time() time.Time {
	if e.TS == 0 || math.IsNaN(e.TS) || math.IsInf(e.TS, 0) {
		return time.Time{}
	}
	sec, frac := math.Modf(e.TS)
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3)
}

// Reply returns an envelope for a message answering e: the given type and
// id, time t, and e's version under e's key, so a peer is answered in the
// spelling it used. When e carried no version, version is used under
// KeyA2E.
func (e Envelope) Reply(typ, id string, t time.Time, version string) Envelope {
	if e.Key != "" {
		return NewEnvelope(typ, id, t, e.Key, e.Version)
	}
	return NewEnvelope(typ, id, t, KeyA2E, version)
}
