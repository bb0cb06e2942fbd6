package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/revocation"
)

// The audit events of the emergency stop.
const (
	EventAdminFreeze   = "admin.freeze"
	EventAdminUnfreeze = "admin.unfreeze"
)

// ErrNoFreezeList is returned when the gateway was built without one.
var ErrNoFreezeList = errors.New("admin: this gateway has no freeze list")

// freezeRequest is the body of POST /admin/freeze and /admin/unfreeze.
type freezeRequest struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// FreezeResult is what a freeze did: the entry, and the live capabilities
// revoked with their descendants.
type FreezeResult struct {
	Entry freeze.Entry `json:"entry"`
	// Revoked counts the capabilities revoked by id (those listed in the
	// index); a principal's are also revoked by a cutoff at Entry.At.
	Revoked int `json:"revoked"`
	// Unreadable names live capabilities whose index records could not be
	// read: not revoked by id, but refused while the freeze holds.
	Unreadable []string `json:"unreadable"`
	// Truncated says the index listed its maximum: older capabilities may
	// remain unrevoked (still refused while the freeze holds); freeze
	// again to revoke the next ones.
	Truncated bool `json:"truncated"`
	// AsPrincipal is the freeze of the principal a frozen agent calls out
	// as (Config.Principals), counted in Revoked above; nil when none.
	AsPrincipal *FreezeResult `json:"asPrincipal,omitempty"`
}

// Freeze is the emergency stop, for operator admin: kind name is frozen
// on every replica (no issuance to or for it, no use of its
// capabilities), then every live capability held by or for it is revoked
// with its descendants. It is one admin.freeze audit event with who and
// why. An error with a non-nil result says the freeze holds but part of
// the rest failed.
func (a *API) Freeze(ctx context.Context, admin, kind, name, reason string) (*FreezeResult, error) {
	res, err := a.freeze(ctx, admin, kind, name, reason)
	attrs := []slog.Attr{slog.String("admin", admin), slog.String("kind", kind), slog.String("name", name),
		slog.String("reason", reason), slog.String("decision", freezeWord(res, err))}
	if res != nil {
		attrs = append(attrs, slog.Int("revoked", res.Revoked), slog.Any("unreadable", res.Unreadable), slog.Bool("truncated", res.Truncated))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	a.audit(ctx, EventAdminFreeze, attrs...)
	return res, err
}

func (a *API) freeze(ctx context.Context, admin, kind, name, reason string) (*FreezeResult, error) {
	if a.deps.Frozen == nil {
		return nil, ErrNoFreezeList
	}
	k, err := freeze.ParseKind(kind)
	if err != nil {
		return nil, err
	}
	if k == freeze.Agent && len(a.cfg.Agents) > 0 && !slices.Contains(a.cfg.Agents, name) {
		return nil, fmt.Errorf("%w: the gateway fronts no agent, MCP server or A2E host named %q", freeze.ErrInvalid, name)
	}
	e, ferr := a.deps.Frozen.Freeze(ctx, k, name, admin, reason)
	if errors.Is(ferr, freeze.ErrInvalid) {
		return nil, ferr
	}
	res := &FreezeResult{Entry: e, Unreadable: []string{}}
	err = errors.Join(ferr, a.revokeFrozen(ctx, res))
	if p := a.cfg.Principals[name]; k == freeze.Agent && p != "" {
		// A freeze of p made on its own is kept as it is: rewriting it
		// as following this agent would let unfreezing the agent lift it.
		pe, ok := a.principalFrozen(p)
		var perr error
		if !ok || followsAgent(pe, name) {
			pe, perr = a.deps.Frozen.Freeze(ctx, freeze.Principal, p, admin, withAgent(reason, name))
		}
		res.AsPrincipal = &FreezeResult{Entry: pe, Unreadable: []string{}}
		if perr == nil {
			perr = a.revokeFrozen(ctx, res.AsPrincipal)
		}
		res.Revoked += res.AsPrincipal.Revoked
		res.Unreadable = append(res.Unreadable, res.AsPrincipal.Unreadable...)
		res.Truncated = res.Truncated || res.AsPrincipal.Truncated
		err = errors.Join(err, perr)
	}
	return res, err
}

// withAgent is the reason recorded on an agent's principal frozen with
// the agent: the operator's reason, and which agent freeze it follows,
// so that unfreezing the agent lifts it and nothing frozen on its own.
func withAgent(reason, agent string) string { return reason + " (frozen with agent " + agent + ")" }

// followsAgent reports whether e is a principal's freeze made with
// agent's, rather than on its own or with another agent's.
func followsAgent(e freeze.Entry, agent string) bool {
	return strings.HasSuffix(e.Reason, withAgent("", agent))
}

// principalFrozen is the freeze holding principal p, if any.
func (a *API) principalFrozen(p string) (freeze.Entry, bool) {
	for _, e := range a.deps.Frozen.List() {
		if e.Kind == freeze.Principal && e.Name == p {
			return e, true
		}
	}
	return freeze.Entry{}, false
}

// followsAgentAs reports whether the freeze pe of the principal p was
// made with one of the agents that call out as p, rather than on its own.
func (a *API) followsAgentAs(pe freeze.Entry, p string) bool {
	for agent, as := range a.cfg.Principals {
		if as == p && followsAgent(pe, agent) {
			return true
		}
	}
	return false
}

// frozenAgentAs reports whether an agent still frozen calls out as the
// principal p: unfreezing another agent that shares p must not lift the
// freeze of p it still needs.
func (a *API) frozenAgentAs(p string) bool {
	for _, e := range a.deps.Frozen.List() {
		if e.Kind == freeze.Agent && a.cfg.Principals[e.Name] == p {
			return true
		}
	}
	return false
}

// revokeFrozen revokes every live capability of what res froze: by id
// each one the index lists for the agent, or held by or for the
// principal, and for a principal everything issued for it before the
// freeze (a cutoff, which covers what the index does not list).
func (a *API) revokeFrozen(ctx context.Context, res *FreezeResult) error {
	e := res.Entry
	f := capindex.Filter{Agent: e.Name}
	var errs []error
	if e.Kind == freeze.Principal {
		f = capindex.Filter{Principal: e.Name}
		maxLife := a.cfg.MaxTTL + time.Minute
		if err := a.deps.Revocations.RevokePrincipal(ctx, e.Name, e.At, e.At.Add(maxLife)); err != nil && !errors.Is(err, revocation.ErrUnconfirmed) {
			errs = append(errs, err)
		}
	}
	recs, err := a.deps.Index.List(ctx, f)
	unreadable, partial := capindex.Partial(err)
	if err != nil && !partial {
		return errors.Join(append(errs, err)...)
	}
	res.Unreadable = append(res.Unreadable, unreadable...)
	res.Truncated = len(recs) >= f.Max()
	for _, rec := range recs {
		_, err := a.revokeAdmin(ctx, revokeRequest{CapabilityID: rec.CapabilityID})
		switch {
		case errors.Is(err, capindex.ErrNotFound): // expired meanwhile
		case err != nil && !errors.Is(err, revocation.ErrUnconfirmed):
			errs = append(errs, fmt.Errorf("capability %s: %w", rec.CapabilityID, err))
		default:
			res.Revoked++
		}
	}
	return errors.Join(errs...)
}

// Unfreeze lifts a freeze for operator admin, with a reason; the
// capabilities revoked when freezing stay revoked. It is one
// admin.unfreeze audit event.
func (a *API) Unfreeze(ctx context.Context, admin, kind, name, reason string) (freeze.Entry, error) {
	e, err := a.unfreeze(ctx, admin, kind, name, reason)
	decision := "unfrozen"
	if err != nil {
		decision = "failed"
	}
	a.audit(ctx, EventAdminUnfreeze, slog.String("admin", admin), slog.String("kind", kind), slog.String("name", name),
		slog.String("reason", reason), slog.String("decision", decision))
	return e, err
}

func (a *API) unfreeze(ctx context.Context, admin, kind, name, reason string) (freeze.Entry, error) {
	if a.deps.Frozen == nil {
		return freeze.Entry{}, ErrNoFreezeList
	}
	k, err := freeze.ParseKind(kind)
	if err != nil {
		return freeze.Entry{}, err
	}
	e, err := a.deps.Frozen.Unfreeze(ctx, k, name, admin, reason)
	if p := a.cfg.Principals[name]; err == nil && k == freeze.Agent && p != "" {
		if pe, ok := a.principalFrozen(p); ok && a.followsAgentAs(pe, p) && !a.frozenAgentAs(p) {
			_, err = a.deps.Frozen.Unfreeze(ctx, freeze.Principal, p, admin, withAgent(reason, name))
		}
	}
	return e, err
}

// Frozen lists what is frozen, sorted by kind and name; nil without a
// freeze list.
func (a *API) Frozen() []freeze.Entry {
	if a.deps.Frozen == nil {
		return nil
	}
	return a.deps.Frozen.List()
}

// freezeWord is the audit decision of a freeze.
func freezeWord(res *FreezeResult, err error) string {
	switch {
	case res == nil:
		return "failed"
	case err != nil:
		return "frozen_incomplete"
	}
	return "frozen"
}

func (a *API) adminFreeze(w http.ResponseWriter, r *http.Request) {
	admin, req, ok := readFreezeRequest(w, r)
	if !ok {
		return
	}
	res, err := a.Freeze(r.Context(), admin, req.Kind, req.Name, req.Reason)
	switch {
	case res != nil && err != nil:
		a.deps.Logger.ErrorContext(r.Context(), "admin freeze incomplete", "error", err)
		w.Header().Set("Retry-After", "1")
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]any{"error": "frozen on this replica, but not everything " +
			"was stored or revoked; retry to complete", "detail": err.Error(), "result": res})
	case err != nil:
		writeFreezeError(w, err)
	default:
		writeJSONStatus(w, http.StatusOK, res)
	}
}

func (a *API) adminUnfreeze(w http.ResponseWriter, r *http.Request) {
	admin, req, ok := readFreezeRequest(w, r)
	if !ok {
		return
	}
	e, err := a.Unfreeze(r.Context(), admin, req.Kind, req.Name, req.Reason)
	if err != nil {
		writeFreezeError(w, err)
		return
	}
	writeJSONStatus(w, http.StatusOK, map[string]any{"entry": e})
}

func (a *API) adminFrozen(w http.ResponseWriter, _ *http.Request) {
	if a.deps.Frozen == nil {
		writeFreezeError(w, ErrNoFreezeList)
		return
	}
	writeJSONStatus(w, http.StatusOK, map[string]any{"frozen": a.deps.Frozen.List()})
}

// readFreezeRequest reads the body of a freeze or unfreeze, with the
// operator's principal id; it answers 400 itself when the body is bad.
func readFreezeRequest(w http.ResponseWriter, r *http.Request) (string, freezeRequest, bool) {
	admin, _ := authn.PrincipalFrom(r.Context())
	var req freezeRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxAdminBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{
			"error": `body must be JSON {"kind": "agent"|"principal", "name": ..., "reason": ...}`})
		return "", req, false
	}
	return admin.ID, req, true
}

func writeFreezeError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, freeze.ErrInvalid):
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	case errors.Is(err, freeze.ErrNotFrozen):
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": err.Error()})
	case errors.Is(err, ErrNoFreezeList):
		writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": err.Error()})
	default:
		w.Header().Set("Retry-After", "1")
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "freeze list unavailable", "detail": err.Error()})
	}
}
