package approval

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ActionVersion names the canonical form ActionHash covers; it is the
// first member of the encoding, so that a later form never collides with
// this one.
const ActionVersion = "capgate.approval.action/v1"

// ActionHashPrefix starts every action hash.
const ActionHashPrefix = "sha256:"

// ErrActionChanged means a stored request's action hash does not match
// what it holds: what it would issue changed after the hash was taken.
// Such a request is never decided or redeemed; the error wraps
// ErrUnavailable too, as ErrForged does.
var ErrActionChanged = errors.New("approval: request no longer holds the action its hash covers")

// ErrOtherAction means the approver decided on another action hash than
// the request holds: what they saw is not what approving would issue.
var ErrOtherAction = errors.New("approval: the request holds another action than the one the approver saw")

// Seen checks that seen, the action hash an approver was shown, is the
// one r holds (for a request stored without one, the hash of what it
// holds). Since a request's hash never changes and deciding refuses a
// request that no longer matches it, a decision checked with Seen is on
// exactly what the approver saw.
func (r *Request) Seen(seen string) error {
	holds := r.ActionHash
	if holds == "" {
		holds = r.ComputeActionHash()
	}
	if seen != holds {
		return fmt.Errorf("%w (shown %q, holds %s)", ErrOtherAction, seen, holds)
	}
	return nil
}

// Action is the canonical form of exactly what an approved request
// issues: who gets it, where, why, under which policy revision, and per
// grant the operations, the resources (real id and display name), the
// lifetime, the delegation depth and whether it may be attenuated. It
// leaves out everything a decision changes (status, approver, reason,
// deadline), so that the hash an approver sees stays the hash redeemed.
//
// The canonical encoding (CanonicalAction) is the JSON of this struct as
// encoding/json writes it (members in the order below, no whitespace),
// after sorting: grants by name then rule, each grant's operations, and
// its resources by id then display name. Lifetimes are whole nanoseconds.
// ActionHash is "sha256:" and the lowercase hex SHA-256 of those bytes.
type Action struct {
	Version        string        `json:"v"`
	Principal      string        `json:"principal"`
	Agent          string        `json:"agent"`
	Purpose        string        `json:"purpose"`
	PolicyRevision string        `json:"policyRevision"`
	Grants         []ActionGrant `json:"grants"`
}

// ActionGrant is one capability of an Action.
type ActionGrant struct {
	Grant      string           `json:"grant"`
	Rule       string           `json:"rule"`
	Operations []string         `json:"operations"`
	Resources  []ActionResource `json:"resources"`
	TTLNanos   int64            `json:"ttlNanos"`
	MaxDepth   int              `json:"maxDepth"`
	Attenuable bool             `json:"attenuable"`
}

// ActionResource is one resource of an ActionGrant: the real id the
// capability is minted for and the name the approver saw.
type ActionResource struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

// Action returns the canonical form of what r issues.
func (r *Request) Action() Action {
	a := Action{Version: ActionVersion, Principal: r.Principal, Agent: r.Agent, Purpose: r.Purpose,
		PolicyRevision: r.PolicyRevision, Grants: make([]ActionGrant, 0, len(r.Grants))}
	for _, g := range r.Grants {
		ag := ActionGrant{Grant: g.Grant, Rule: g.Rule, Operations: slices.Sorted(slices.Values(g.Operations)),
			Resources: make([]ActionResource, 0, len(g.Resources)), TTLNanos: int64(g.TTL), MaxDepth: g.MaxDepth,
			Attenuable: g.Attenuable}
		if ag.Operations == nil {
			ag.Operations = []string{}
		}
		for _, res := range g.Resources {
			ag.Resources = append(ag.Resources, ActionResource{ID: res.ID, DisplayName: res.DisplayName})
		}
		slices.SortFunc(ag.Resources, func(x, y ActionResource) int {
			return cmp.Or(cmp.Compare(x.ID, y.ID), cmp.Compare(x.DisplayName, y.DisplayName))
		})
		a.Grants = append(a.Grants, ag)
	}
	slices.SortFunc(a.Grants, func(x, y ActionGrant) int {
		return cmp.Or(cmp.Compare(x.Grant, y.Grant), cmp.Compare(x.Rule, y.Rule))
	})
	return a
}

// CanonicalAction returns the bytes ActionHash covers (see Action).
func (r *Request) CanonicalAction() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r.Action()) // an Action always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ComputeActionHash returns the hash of what r holds now; ActionHash is
// the one taken when it was created.
func (r *Request) ComputeActionHash() string {
	sum := sha256.Sum256(r.CanonicalAction())
	return ActionHashPrefix + hex.EncodeToString(sum[:])
}

// checkAction refuses a request whose stored hash is missing or no
// longer matches what it holds.
func checkAction(r *Request) error {
	if r.ActionHash == "" || r.ActionHash != r.ComputeActionHash() {
		return fmt.Errorf("%w: %w (request %s)", ErrUnavailable, ErrActionChanged, r.ID)
	}
	return nil
}

// bindAction binds a request being decided to what it holds: the hash
// it was created with must still match, and a request an earlier gateway
// created without one gets it now, as the approver saw it.
func bindAction(r *Request) error {
	if r.ActionHash == "" {
		r.ActionHash = r.ComputeActionHash()
	}
	return checkAction(r)
}
