package approval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/policy"
)

// Audit events, one per transition.
const (
	EventRequested = "approval.requested"
	EventApproved  = "approval.approved"
	EventDenied    = "approval.denied"
	EventExpired   = "approval.expired"
	EventRedeemed  = "approval.redeemed"
)

// Retention is how long a request is kept after its deadline.
const Retention = 24 * time.Hour

// Store is what the front, the admin API and the console use; see the
// package documentation for its contract.
type Store interface {
	// Create records r as pending and returns it with its id and deadline.
	Create(ctx context.Context, r Request) (Request, error)
	// Get returns the request with id.
	Get(ctx context.Context, id string) (Request, error)
	// List returns the requests f selects, newest first. An error for
	// which Partial is true names requests that failed their MAC and comes
	// with every request that verifies: the listing answered in part.
	List(ctx context.Context, f Filter) ([]Request, error)
	// Approve approves a pending request on behalf of approver.
	Approve(ctx context.Context, id string, approver policy.Principal, reason string) (Request, error)
	// Deny denies a pending request on behalf of approver.
	Deny(ctx context.Context, id string, approver policy.Principal, reason string) (Request, error)
	// Redeem uses the approval of principal's request id, asked at agent,
	// once. A request of another principal or asked at another agent is
	// ErrNotFound.
	Redeem(ctx context.Context, id, principal, agent string) (Request, error)
}

// Backend stores requests. Update must be atomic across every user of the
// same storage (replicas included).
type Backend interface {
	// Put stores a new request until its deadline plus Retention.
	Put(ctx context.Context, r Request) error
	// Get returns the stored request, or ErrNotFound.
	Get(ctx context.Context, id string) (Request, error)
	// List returns the stored requests, newest first, at most limit of
	// them among those keep accepts.
	List(ctx context.Context, keep func(*Request) bool, limit int) ([]Request, error)
	// Update applies fn to the stored request atomically. When fn returns
	// write true the changed request is stored; fn's error is returned
	// either way, with the request as fn left it.
	Update(ctx context.Context, id string, fn func(*Request) (write bool, err error)) (Request, error)
}

// Notifier tells approvers that a request waits. Notify must not block
// the caller for long; errors are logged, never returned to the requester.
type Notifier interface {
	Notify(ctx context.Context, r Request)
}

// Options are a Desk's collaborators.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Audit receives one event per transition; nil records nothing.
	Audit *slog.Logger
	// Notifier, when set, is told of every new request.
	Notifier Notifier
	// Approvers, when set, returns the approvers the policy in force
	// names. A decision then needs the approver to be named there too, not
	// only by the rule the request was held under: an approver the policy
	// no longer names cannot decide a request that still waits.
	Approvers func() policy.Approvers
	// Ledger, when set, records every redemption one way before the
	// record does, and Redeem refuses a request it holds: on a shared
	// store, a record rolled back to its approved state is not redeemed
	// again. Open sets it to the gateway's revocation store.
	Ledger Ledger
	// MaxPending bounds the requests one principal may have waiting at
	// once; 0 means DefaultMaxPending.
	MaxPending int
}

// Desk enforces the rules of approval on top of a Backend.
type Desk struct {
	b    Backend
	opts Options
	// creating serializes Create on this replica, so that the bound on a
	// principal's pending requests is exceeded, under concurrent creates,
	// by at most one request per other replica.
	creating sync.Mutex
}

var _ Store = (*Desk)(nil)

// errExpiring marks the transition of a request to expired, so that the
// expiry is audited once, by whoever first saw it.
var errExpiring = fmt.Errorf("%w (now)", ErrExpired)

// NewDesk returns a Store on b.
func NewDesk(b Backend, opts Options) *Desk {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Desk{b: b, opts: opts}
}

// Create records r as pending. When the principal already has a pending
// request asking exactly what r asks, it returns that one instead; when
// it has MaxPending requests waiting, it refuses with a
// *PendingLimitError.
func (d *Desk) Create(ctx context.Context, r Request) (Request, error) {
	if r.Principal == "" || r.Agent == "" || len(r.Grants) == 0 || r.Wait <= 0 || len(r.Approvers()) == 0 {
		return Request{}, fmt.Errorf("%w: principal, agent, grants, wait and approvers are required", ErrInvalid)
	}
	d.creating.Lock()
	defer d.creating.Unlock()
	if same, found, err := d.waiting(ctx, &r); found || err != nil {
		return same, err
	}
	id, err := captoken.NewID(nil, IDPrefix)
	if err != nil {
		return Request{}, err
	}
	now := d.opts.Now()
	r.ID, r.Status, r.CreatedAt, r.Deadline = id, StatusPending, now, now.Add(r.Wait)
	r.DecidedBy, r.DecidedAt, r.Reason, r.RedeemedAt = "", time.Time{}, "", time.Time{}
	r.ActionHash = r.ComputeActionHash()
	if err := d.b.Put(ctx, r); err != nil {
		return Request{}, err
	}
	d.audit(ctx, EventRequested, &r, "")
	if d.opts.Notifier != nil {
		d.opts.Notifier.Notify(ctx, r.Public())
	}
	return r, nil
}

// Get returns the request with id as of now.
func (d *Desk) Get(ctx context.Context, id string) (Request, error) {
	r, err := d.b.Get(ctx, id)
	if err != nil {
		return Request{}, err
	}
	return r.effective(d.opts.Now()), nil
}

// List returns the requests f selects, as of now, newest first, with the
// backend's error as it is: on a Sealed backend, a *ForgedError comes with
// every request that verifies.
func (d *Desk) List(ctx context.Context, f Filter) ([]Request, error) {
	now := d.opts.Now()
	rs, err := d.b.List(ctx, func(r *Request) bool {
		e := r.effective(now)
		return f.keeps(&e)
	}, f.limit())
	for i := range rs {
		rs[i] = rs[i].effective(now)
	}
	return rs, err
}

// Approve approves a pending request.
func (d *Desk) Approve(ctx context.Context, id string, approver policy.Principal, reason string) (Request, error) {
	return d.decide(ctx, id, approver, reason, StatusApproved, EventApproved)
}

// Deny denies a pending request.
func (d *Desk) Deny(ctx context.Context, id string, approver policy.Principal, reason string) (Request, error) {
	return d.decide(ctx, id, approver, reason, StatusDenied, EventDenied)
}

func (d *Desk) decide(ctx context.Context, id string, approver policy.Principal, reason string, to Status, event string) (Request, error) {
	now := d.opts.Now()
	r, err := d.b.Update(ctx, id, func(r *Request) (bool, error) {
		if err := r.MayDecide(approver); err != nil {
			return false, err
		}
		if d.opts.Approvers != nil && !d.opts.Approvers().Admits(approver) {
			return false, ErrNotApprover
		}
		if expired := expire(r, now); expired != nil {
			return expired == errExpiring, expired
		}
		if r.Status != StatusPending {
			return false, ErrNotPending
		}
		if err := bindAction(r); err != nil {
			return false, err
		}
		r.Status, r.DecidedBy, r.DecidedAt, r.Reason = to, approver.ID, now, reason
		if to == StatusApproved {
			r.Deadline = now.Add(r.Wait)
		}
		return true, nil
	})
	d.after(ctx, &r, err, event, approver.ID)
	return r, err
}

// Redeem uses the approval of principal's request id, asked at agent,
// once. Who asked and where are checked in the same atomic update that
// marks it redeemed, so no store error can let it be used elsewhere. A
// request that may be redeemed is first marked used in the Ledger, which
// a rollback of its record cannot undo.
func (d *Desk) Redeem(ctx context.Context, id, principal, agent string) (Request, error) {
	now := d.opts.Now()
	check := func(r *Request) (bool, error) { return redeemable(r, principal, agent, now) }
	if d.opts.Ledger != nil {
		r, err := d.b.Get(ctx, id)
		if err != nil {
			return Request{}, err
		}
		if _, err := check(&r); err == nil {
			if err := d.spend(ctx, &r); err != nil {
				return Request{}, err
			}
		} // Otherwise the update below refuses it, and audits an expiry.
	}
	r, err := d.b.Update(ctx, id, func(r *Request) (bool, error) {
		write, err := check(r)
		if err == nil {
			r.Status, r.RedeemedAt = StatusRedeemed, now
			write = true
		}
		return write, err
	})
	if errors.Is(err, ErrNotFound) {
		return Request{}, err
	}
	d.after(ctx, &r, err, EventRedeemed, "")
	return r, err
}

// redeemable reports whether principal may redeem r at agent now: nil
// when r is approved and unexpired. It writes (true) only the transition
// to expired.
func redeemable(r *Request, principal, agent string, now time.Time) (bool, error) {
	if r.Principal != principal || r.Agent != agent {
		return false, ErrNotFound
	}
	if expired := expire(r, now); expired != nil {
		return expired == errExpiring, expired
	}
	switch r.Status {
	case StatusPending:
		return false, ErrPending
	case StatusDenied:
		return false, ErrDenied
	case StatusRedeemed:
		return false, ErrRedeemed
	}
	return false, checkAction(r)
}

// expire turns a request past its deadline into an expired one. It returns
// errExpiring on the transition, ErrExpired when it had already happened.
func expire(r *Request, now time.Time) error {
	switch {
	case r.Status == StatusExpired:
		return ErrExpired
	case (r.Status == StatusPending || r.Status == StatusApproved) && !now.Before(r.Deadline):
		r.Status = StatusExpired
		return errExpiring
	}
	return nil
}

// after audits a transition: event on success, the expiry when this call
// made it.
func (d *Desk) after(ctx context.Context, r *Request, err error, event, actor string) {
	switch {
	case err == nil:
		d.audit(ctx, event, r, actor)
	case errors.Is(err, errExpiring):
		d.audit(ctx, EventExpired, r, actor)
	}
}

func (d *Desk) audit(ctx context.Context, event string, r *Request, actor string) {
	if d.opts.Audit == nil {
		return
	}
	grants := make([]string, 0, len(r.Grants))
	for _, g := range r.Grants {
		grants = append(grants, g.Grant)
	}
	d.opts.Audit.LogAttrs(ctx, slog.LevelInfo, event,
		slog.String("approval_id", r.ID), slog.String("status", string(r.Status)),
		slog.String("principal", r.Principal), slog.String("agent", r.Agent),
		slog.Any("grants", grants), slog.String("purpose", r.Purpose),
		slog.String("approver", r.DecidedBy), slog.String("actor", actor),
		slog.String("reason", r.Reason), slog.String("policy_revision", r.PolicyRevision),
		slog.String("action_hash", r.ActionHash))
}
