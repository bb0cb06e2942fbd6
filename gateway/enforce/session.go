package enforce

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/capgate/capgate/policy"
)

// Some protocols negotiate once instead of presenting a capability on
// every call: an A2E session agrees at its handshake which capabilities
// (operations) the caller may use with a host, and every later message
// is checked against that set. The set was decided under one policy
// revision; a reload must still reach the live session, at its next
// message, without re-deciding on every message.

// ErrNoPolicy means no policy is loaded, so nothing can be decided: the
// caller must refuse (fail closed), with a retryable error.
var ErrNoPolicy = errors.New("enforce: no policy loaded")

// Negotiated is what a session agreed: the operations it may perform,
// decided under one policy revision.
type Negotiated struct {
	// Session names the session; the re-decision is cached under it.
	Session string
	// Operations are the operations the session negotiated.
	Operations []string
	// Revision is the revision of the policy that decided them.
	Revision string
}

// Redecide returns which of a session's negotiated operations pol still
// allows. It is the protocol's own question to the policy.
type Redecide func(ctx context.Context, pol *policy.Policy) []string

// Sessions checks an operation against what its session negotiated and
// what the policy in force still allows, re-deciding a session once per
// policy revision. It is safe for concurrent use.
type Sessions struct {
	current func() *policy.Policy
	max     int

	mu       sync.Mutex
	revision string
	allowed  map[string][]string // session → operations still allowed
}

// NewSessions builds a Sessions reading the policy in force from current
// and caching at most max sessions' re-decisions (all are dropped when
// the cache is full).
func NewSessions(current func() *policy.Policy, max int) *Sessions {
	return &Sessions{current: current, max: max, allowed: map[string][]string{}}
}

// Check refuses op when the session never negotiated it
// (operation_not_permitted, detail not_negotiated) or the policy in force
// no longer allows it (detail no_longer_allowed). redecide is asked at
// most once per session and policy revision. With no policy loaded it
// returns ErrNoPolicy.
func (s *Sessions) Check(ctx context.Context, n Negotiated, op string, redecide Redecide) (*Refusal, error) {
	if !slices.Contains(n.Operations, op) {
		return refuse(OperationNotPermitted, "capability "+op+" was not negotiated",
			map[string]any{"operation": op, "detail": "not_negotiated"}), nil
	}
	allowed, err := s.InForce(ctx, n, redecide)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(allowed, op) {
		return refuse(OperationNotPermitted, "capability "+op+" is no longer allowed by policy",
			map[string]any{"operation": op, "detail": "no_longer_allowed"}), nil
	}
	return nil, nil
}

// InForce returns the session's operations the policy in force still
// allows: n.Operations itself while the policy that decided them is in
// force, else n.Operations narrowed by the current policy, decided once
// per session and revision.
func (s *Sessions) InForce(ctx context.Context, n Negotiated, redecide Redecide) ([]string, error) {
	pol := s.current()
	if pol == nil {
		return nil, ErrNoPolicy
	}
	rev := pol.Revision()
	if rev == n.Revision {
		return n.Operations, nil
	}
	if got, ok := s.cached(rev, n.Session); ok {
		return got, nil
	}
	still := redecide(ctx, pol)
	got := slices.DeleteFunc(slices.Clone(n.Operations), func(op string) bool { return !slices.Contains(still, op) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revision == rev && ctx.Err() == nil {
		if len(s.allowed) >= s.max {
			clear(s.allowed)
		}
		s.allowed[n.Session] = got
	}
	return got, nil
}

// cached returns the session's re-decision under rev, emptying the cache
// when rev is new.
func (s *Sessions) cached(rev, session string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revision != rev {
		s.revision, s.allowed = rev, map[string][]string{}
	}
	got, ok := s.allowed[session]
	return got, ok
}
