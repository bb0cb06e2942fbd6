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
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// EventAdminRevoke is the audit event of a revocation made by an operator.
const EventAdminRevoke = "admin.revoke"

// maxAdminBody bounds an admin request body.
const maxAdminBody = 64 << 10

// Config is who may use the admin API and how long a revocation by id or
// by principal must be kept.
type Config struct {
	// Access lists the admin principals and groups.
	Access config.AdminAccess
	// MaxTTL is the longest life of any capability: a revocation that
	// cannot read the capability's own expiry is kept this long.
	MaxTTL time.Duration
	// Agents names every agent, MCP server and A2E host the gateway
	// fronts: an agent freeze must name one of them, as a misspelt name
	// would freeze nothing. Empty accepts any name.
	Agents []string
	// Principals maps each agent and MCP server to the principal it calls
	// out as (agents[].principal): freezing the agent freezes that
	// principal too, so what was delegated to the agent is revoked and
	// refused with it. An agent without one is frozen alone.
	Principals map[string]string
}

// Deps are the admin API's collaborators.
type Deps struct {
	Authenticator *authn.Authenticator
	Index         capindex.Index
	Verifier      *captoken.Verifier
	Revocations   revocation.Store
	// Frozen is the emergency stop's list; nil answers the freeze routes
	// with 501.
	Frozen *freeze.Set
	// Approvals holds requests waiting for human approval; nil answers
	// the approval routes with 501.
	Approvals approval.Store
	// Policy is the policy in force; POST /admin/policy/reload works when
	// it can also Reload.
	Policy interface{ Current() *policy.Policy }
	// Audit receives one event per operator action; nil records nothing.
	Audit *slog.Logger
	// Refusals bounds the admin.refused events per client (its Audit
	// should be Audit); nil writes every one to Audit.
	Refusals *throttle.Throttle
	// Runtime's clock dates revocations and its logger receives
	// failures; both must be set.
	platform.Runtime
}

// API is the admin API.
type API struct {
	cfg  Config
	deps Deps
}

// New returns the admin API. deps.Runtime's Logger and Now must be set.
func New(cfg Config, deps Deps) *API { return &API{cfg: cfg, deps: deps} }

// Handler returns the admin API, for its own listener. Callers
// authenticate like any caller, and must then be one of the configured
// admin principals or belong to an admin group. Every call it refuses
// with 401 or 403 is an admin.refused audit event.
func (a *API) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(a.auditRefusals, authn.Middleware(a.deps.Authenticator, a.deps.Logger), noteCaller)
	r.Group(func(r chi.Router) {
		r.Use(a.adminOnly)
		r.Post("/admin/revoke", a.adminRevoke)
		r.Get("/admin/capabilities", a.adminCapabilities)
		r.Post("/admin/policy/reload", a.adminReload)
		r.Get("/admin/policy", a.adminPolicy)
		r.Post("/admin/freeze", a.adminFreeze)
		r.Post("/admin/unfreeze", a.adminUnfreeze)
		r.Get("/admin/frozen", a.adminFrozen)
	})
	a.approvalRoutes(r)
	return r
}

func (a *API) adminOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := authn.PrincipalFrom(r.Context())
		acc := a.cfg.Access
		if !ok || !(slices.Contains(acc.Principals, p.ID) || slices.ContainsFunc(acc.Groups, p.HasGroup)) {
			writeJSONStatus(w, http.StatusForbidden, map[string]string{"error": "admin access required"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// revokeRequest is the body of POST /admin/revoke: exactly one of a
// capability id (cascading to its descendants), a revocation id, or a
// principal with an optional cutoff time (default now).
type revokeRequest struct {
	CapabilityID string     `json:"capabilityId,omitempty"`
	RevocationID string     `json:"revocationId,omitempty"`
	Principal    string     `json:"principal,omitempty"`
	Before       *time.Time `json:"before,omitempty"`
}

func (a *API) adminRevoke(w http.ResponseWriter, r *http.Request) {
	var req revokeRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxAdminBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || countSet(req.CapabilityID, req.RevocationID, req.Principal) != 1 {
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{
			"error": "body must be JSON naming exactly one of capabilityId, revocationId, principal (with optional before)"})
		return
	}
	ctx := r.Context()
	admin, _ := authn.PrincipalFrom(ctx)
	res, err := a.revokeAudited(ctx, admin.ID, req)
	switch {
	case errors.Is(err, capindex.ErrNotFound):
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "unknown capability"})
	case errors.Is(err, captoken.ErrInvalid):
		writeJSONStatus(w, http.StatusUnprocessableEntity, map[string]string{"error": "the indexed token does not verify"})
	case errors.Is(err, revocation.ErrUnconfirmed):
		a.deps.Logger.WarnContext(ctx, "admin revocation stored, replicas' confirmation not awaited", "error", err)
		w.Header().Set("Retry-After", "1")
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "revoked, but the call ended before every " +
			"replica confirmed it; it is refused everywhere within the staleness bound; retry to confirm"})
	case err != nil:
		a.deps.Logger.ErrorContext(ctx, "admin revocation failed", "error", err)
		w.Header().Set("Retry-After", "1")
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "revocation store unavailable; nothing was revoked"})
	default:
		writeJSONStatus(w, http.StatusOK, res)
	}
}

func (a *API) revokeAdmin(ctx context.Context, req revokeRequest) (map[string]any, error) {
	now := a.deps.Now()
	maxLife := a.cfg.MaxTTL + time.Minute
	switch {
	case req.CapabilityID != "":
		rec, err := a.deps.Index.Get(ctx, req.CapabilityID)
		if err != nil {
			return nil, err
		}
		claims, _, err := captoken.UnsafeClaimsWithoutVerification(rec.Token.String())
		if err == nil {
			_, err = a.deps.Verifier.VerifyPacked(ctx, rec.Token, captoken.Expected{})
		}
		if err != nil && !errors.Is(err, captoken.ErrExpired) {
			return nil, err
		}
		if claims.CapabilityID != req.CapabilityID {
			// A record whose token is another capability's (written to the
			// index's store by someone else): revoking what it names would
			// revoke the wrong capability and leave the asked one live.
			return nil, fmt.Errorf("%w: the indexed token is capability %q, not %q", captoken.ErrInvalid, claims.CapabilityID, req.CapabilityID)
		}
		res := map[string]any{"revoked": true, "capabilityId": claims.CapabilityID, "revocationId": claims.RevocationID}
		return storedResult(res, a.deps.Revocations.Revoke(ctx, claims.RevocationID, claims.Expiry.Time().Add(time.Minute)))
	case req.RevocationID != "":
		res := map[string]any{"revoked": true, "revocationId": req.RevocationID}
		return storedResult(res, a.deps.Revocations.Revoke(ctx, req.RevocationID, now.Add(maxLife)))
	default:
		before := now
		if req.Before != nil {
			before = *req.Before
		}
		res := map[string]any{"revoked": true, "principal": req.Principal, "before": before.UTC()}
		return storedResult(res, a.deps.Revocations.RevokePrincipal(ctx, req.Principal, before, before.Add(maxLife)))
	}
}

// adminCapabilities lists a principal's live capabilities with their
// revocation state; "unknown" when the store cannot say. The ids of
// records the index could not read are listed under "unreadable" (empty
// when none), next to the readable ones: they may be live. Those of them
// whose record is gone (deleted or evicted) are also listed under
// "missing"; the others are present but cannot be decoded. Any other
// index error, even one that also names unreadable records, is a 503.
func (a *API) adminCapabilities(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Query().Get("principal")
	if p == "" {
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "principal is required"})
		return
	}
	recs, err := a.deps.Index.ListByPrincipal(r.Context(), p)
	unreadable, partial := capindex.Partial(err)
	switch {
	case err != nil && !partial:
		w.Header().Set("Retry-After", "1")
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "capability index unavailable"})
		return
	case err != nil:
		a.deps.Logger.WarnContext(r.Context(), "admin: capability records could not be read; they may be live",
			"principal", p, "count", len(unreadable), "error", err)
	default:
		unreadable = []string{}
	}
	missing := append([]string{}, capindex.MissingIDs(err)...)
	out := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		out = append(out, map[string]any{
			"id": rec.CapabilityID, "grant": rec.Grant, "agent": rec.Agent, "principal": rec.Principal,
			"holder": rec.Holder, "parentId": rec.ParentID, "issuedAt": rec.IssuedAt, "expires": rec.Expires,
			"revoked": a.revokedState(r.Context(), rec),
		})
	}
	writeJSONStatus(w, http.StatusOK, map[string]any{
		"principal": p, "capabilities": out, "unreadable": unreadable, "missing": missing,
	})
}

func (a *API) revokedState(ctx context.Context, rec capindex.Record) string {
	c, err := a.deps.Verifier.VerifyPacked(ctx, rec.Token, captoken.Expected{})
	if err != nil {
		return "invalid"
	}
	res, err := a.deps.Revocations.Check(ctx, revocation.Query{IDs: c.RevocationIDs(), Principal: c.Principal, IssuedAt: c.IssuedAt.Time()})
	switch {
	case err != nil:
		return "unknown"
	case res.Revoked:
		return "revoked"
	}
	return "live"
}

// reloader is a policy source that can reload on demand.
type reloader interface {
	Reload(ctx context.Context) error
}

func (a *API) adminReload(w http.ResponseWriter, r *http.Request) {
	rl, ok := a.deps.Policy.(reloader)
	if !ok {
		writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": "this policy source cannot reload"})
		return
	}
	if err := rl.Reload(r.Context()); err != nil {
		writeJSONStatus(w, http.StatusUnprocessableEntity, map[string]any{
			"error": "policy refused; the last good policy keeps serving", "detail": err.Error(),
			"revision": a.deps.Policy.Current().Revision(),
		})
		return
	}
	a.adminPolicy(w, r)
}

func (a *API) adminPolicy(w http.ResponseWriter, _ *http.Request) {
	p := a.deps.Policy.Current()
	writeJSONStatus(w, http.StatusOK, map[string]any{"revision": p.Revision(), "name": p.Name(), "rules": p.Rules()})
}

func countSet(ss ...string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}

// storedResult is res when the revocation was stored: err is nil, or the
// revocation was stored but not confirmed by every replica, so the audit
// trail still records what was revoked. Otherwise it is nil.
func storedResult(res map[string]any, err error) (map[string]any, error) {
	if err != nil && !errors.Is(err, revocation.ErrUnconfirmed) {
		return nil, err
	}
	return res, err
}

func decisionWord(err error) string {
	switch {
	case errors.Is(err, revocation.ErrUnconfirmed):
		return "revoked_unconfirmed"
	case err != nil:
		return "failed"
	}
	return "revoked"
}

// audit records an operator's action in the audit trail.
func (a *API) audit(ctx context.Context, event string, attrs ...slog.Attr) {
	if a.deps.Audit != nil {
		a.deps.Audit.LogAttrs(ctx, slog.LevelInfo, event, attrs...)
	}
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
