package a2efront

import (
	"context"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

// State is the handshake state of a session.
type State string

// Session states.
const (
	// StateNew: created by POST /session, not yet authenticated.
	StateNew State = "new"
	// StateHandshaking: a handshake/req was authenticated, narrowed and
	// forwarded; the host's handshake/resp is awaited.
	StateHandshaking State = "handshaking"
	// StateReady: the handshake succeeded; Accepted and MaxParallel hold.
	StateReady State = "ready"
	// StateClosed: too many failed handshakes; the session is refused
	// until it expires.
	StateClosed State = "closed"
)

// Session is the gateway's record of one A2E session. It is what replicas
// share through a SessionStore.
type Session struct {
	// ID is the gateway session id, the X-Session-Id callers send.
	ID string `json:"id"`
	// Host is the A2E host name.
	Host string `json:"host"`
	// UpstreamID is the host's own session id.
	UpstreamID string `json:"upstream_id,omitempty"`
	// State is the handshake state.
	State State `json:"state"`
	// Rev is the store's revision of the record; Update compares it.
	Rev int64 `json:"rev"`
	// CreatedAt is when POST /session created it.
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt ends the session: CreatedAt+HandshakeTimeout until the
	// handshake succeeds, CreatedAt+SessionTTL after.
	ExpiresAt time.Time `json:"expires_at"`
	// Attempts counts handshake/req messages received.
	Attempts int `json:"attempts,omitempty"`
	// Client is the client key (the remote address: an IPv4 address or an
	// IPv6 /64) of a session reserved without credentials; empty when
	// POST /session authenticated. Such a
	// session counts against Limits.Anonymous and Limits.PerClient until
	// it has a Principal.
	Client string `json:"client,omitempty"`

	// Principal is the authenticated principal id.
	Principal string `json:"principal,omitempty"`
	// Issuer is the principal's issuer ("dev" for a dev key).
	Issuer string `json:"issuer,omitempty"`
	// Groups are the principal's groups.
	Groups []string `json:"groups,omitempty"`
	// VersionKey and Version are the version spelling and value the
	// caller used in handshake/req; the gateway answers in kind.
	VersionKey a2e.VersionKey `json:"version_key,omitempty"`
	Version    string         `json:"version,omitempty"`
	// HandshakeID is the id of the forwarded handshake/req.
	HandshakeID string `json:"handshake_id,omitempty"`
	// Requested is agent_caps as requested (deduplicated).
	Requested []string `json:"requested,omitempty"`
	// Forwarded is agent_caps as forwarded: Requested narrowed to policy
	// and to what the host offers.
	Forwarded []string `json:"forwarded,omitempty"`
	// Denied maps each requested capability not forwarded to the reason
	// shown to the caller ("denied by policy", "no plugin loaded").
	Denied map[string]string `json:"denied,omitempty"`
	// PolicyReasons maps each capability the policy denied to the
	// policy's own reason, for the audit trail only.
	PolicyReasons map[string]string `json:"policy_reasons,omitempty"`
	// PolicyRevision is the revision of the policy that decided.
	PolicyRevision string `json:"policy_revision,omitempty"`
	// Accepted lists the capabilities the session may use.
	Accepted []string `json:"accepted,omitempty"`
	// MaxParallel bounds the session's requests in flight.
	MaxParallel int `json:"max_parallel,omitempty"`

	// MAC authenticates every other field but Rev (HMAC-SHA256 with
	// Deps.RecordKey, base64url). The Front seals each record it writes
	// and refuses any record whose MAC does not verify.
	MAC string `json:"mac,omitempty"`
}

// Admission is the outcome of SessionStore.Admit.
type Admission int

// Admission outcomes.
const (
	// Admitted: the request is now in flight.
	Admitted Admission = iota + 1
	// Full: max requests are already in flight.
	Full
	// Duplicate: a request with the same id is already in flight.
	Duplicate
)

// Subscription delivers the gateway messages published for one session.
type Subscription interface {
	// C delivers messages in publication order. It is closed when the
	// subscription ends.
	C() <-chan []byte
	// Close ends the subscription.
	Close() error
}

// SessionStore holds A2E sessions, their in-flight requests and the
// gateway messages queued for their streams. Every method is safe for
// concurrent use. Any failure to reach the backing store wraps
// ErrStoreUnavailable, and callers must then refuse, never allow.
type SessionStore interface {
	// Create stores a new session (Rev 1) unless lim.Max live sessions
	// exist (ErrSessionLimit). A session with a Client is also refused
	// when lim.Anonymous anonymous reservations (live sessions with a
	// Client and no Principal) exist (ErrAnonymousLimit), or lim.PerClient
	// of its Client's (ErrClientLimit).
	Create(ctx context.Context, s Session, lim Limits) error
	// Get returns a live session, or ErrSessionNotFound.
	Get(ctx context.Context, id string) (Session, error)
	// Update replaces a live session when its stored Rev equals s.Rev
	// (ErrConflict otherwise), and returns it with Rev incremented.
	// s.ExpiresAt becomes the session's expiry. A session that gains a
	// Principal stops counting as an anonymous reservation.
	Update(ctx context.Context, s Session) (Session, error)
	// Delete removes a session with its in-flight requests and queued
	// messages. Deleting an absent session is not an error.
	Delete(ctx context.Context, id string) error
	// Admit puts request reqID of session id in flight until deadline,
	// unless max requests are already in flight (Full) or reqID is
	// (Duplicate). Requests past their deadline no longer count.
	Admit(ctx context.Context, id, reqID string, max int, deadline time.Time) (Admission, error)
	// Complete takes reqID out of flight and reports whether it was in.
	Complete(ctx context.Context, id, reqID string) (bool, error)
	// InFlight counts the session's requests in flight.
	InFlight(ctx context.Context, id string) (int, error)
	// Publish queues a message for the session's stream, on whichever
	// replica holds it. At most MailboxLimit messages wait; the oldest is
	// dropped beyond that.
	Publish(ctx context.Context, id string, msg []byte) error
	// Subscribe delivers the session's queued and future messages until
	// ctx ends or the subscription is closed. A message is delivered to
	// one subscriber.
	Subscribe(ctx context.Context, id string) (Subscription, error)
	// Close releases the store's resources.
	Close() error
}

// Limits bound the sessions a SessionStore.Create may add. Anonymous
// reservations get their own share so that callers who authenticate on
// POST /session always find room, and each client a part of that share.
type Limits struct {
	// Max bounds the live sessions, anonymous or not.
	Max int
	// Anonymous bounds the live anonymous reservations.
	Anonymous int
	// PerClient bounds the live anonymous reservations of one Client.
	PerClient int
}

// MailboxLimit bounds the gateway messages queued for one session.
const MailboxLimit = 256
