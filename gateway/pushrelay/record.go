package pushrelay

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable means the relay store could not answer: the call that
// needed it is refused, never allowed.
var ErrUnavailable = errors.New("pushrelay: store unavailable")

// ErrNotFound means no relayed config has the id.
var ErrNotFound = errors.New("pushrelay: no such relayed config")

// Auth is how the caller's receiver authenticates a push.
type Auth struct {
	// Schemes are the caller's schemes (Bearer or Basic apply).
	Schemes []string `json:"schemes,omitempty"`
	// Credentials are sent under the first scheme that applies.
	Credentials string `json:"credentials,omitempty"`
}

// Target is where, and as whom, a caller wants pushes delivered.
type Target struct {
	// URL is the caller's receiver.
	URL string `json:"url"`
	// Token is sent as X-A2A-Notification-Token.
	Token string `json:"token,omitempty"`
	// Auth, when set, authenticates each delivery.
	Auth *Auth `json:"authentication,omitempty"`
}

// Record is one relayed push config.
type Record struct {
	// ID is the relay's id of the config: the last segment of the relay
	// URL the agent posts to.
	ID string `json:"id"`
	// Agent is the fronted agent the config was set on.
	Agent string `json:"agent"`
	// Owner is the principal that set it.
	Owner string `json:"owner"`
	// Task is the task the config is for; empty until the first push
	// when the config came with a send that started the task.
	Task string `json:"task,omitempty"`
	// ConfigID is the config's id as the agent knows it (the caller's,
	// or the relay id when the caller named none).
	ConfigID string `json:"configId"`
	// CallerConfigID is the id the caller named, if any.
	CallerConfigID string `json:"callerConfigId,omitempty"`
	// CapabilityID is the capability the config was set under; empty for
	// a config set on a call scoped to none.
	CapabilityID string `json:"capabilityId,omitempty"`
	// V1 says the caller spoke A2A v1.0: pushes are delivered in v1.0's
	// shape.
	V1 bool `json:"v1,omitempty"`
	// Target is the caller's receiver.
	Target Target `json:"target"`
	// SecretHash is the SHA-256 of the secret the agent presents.
	SecretHash []byte `json:"secretHash"`
	// Created is when the config was set.
	Created time.Time `json:"created"`
}

// NewRecord fills r's ID and SecretHash with fresh random values and
// returns the secret, which is stored nowhere: it goes to the agent once.
// When r names no ConfigID, the relay id is used.
func NewRecord(r Record) (Record, string, error) {
	id, err := random(18)
	if err != nil {
		return Record{}, "", err
	}
	secret, err := random(32)
	if err != nil {
		return Record{}, "", err
	}
	r.ID = "pr_" + id
	if r.ConfigID == "" {
		r.ConfigID = r.ID
	}
	sum := sha256.Sum256([]byte(secret))
	r.SecretHash = sum[:]
	return r, secret, nil
}

// Authentic reports, in constant time, whether secret is the record's.
func (r Record) Authentic(secret string) bool {
	sum := sha256.Sum256([]byte(secret))
	return len(r.SecretHash) == len(sum) && subtle.ConstantTimeCompare(sum[:], r.SecretHash) == 1
}

func random(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("pushrelay: reading randomness: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Store keeps the relayed configs of every agent.
type Store interface {
	// Put stores r (a new record, or r's update). A new record of an
	// owner holding as many as one principal may is refused
	// (*PrincipalFullError, ErrPrincipalFull); a deleted or expired record
	// no longer counts.
	Put(ctx context.Context, r Record) error
	// Get returns the record of agent with relay id id, or ErrNotFound.
	Get(ctx context.Context, agent, id string) (Record, error)
	// ByTask returns the records of agent's task.
	ByTask(ctx context.Context, agent, task string) ([]Record, error)
	// Delete removes the record, if it is there.
	Delete(ctx context.Context, r Record) error
}
