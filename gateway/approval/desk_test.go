package approval_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation/redistest"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var (
	carol = "user:carol@example.com"
	dave  = policy.Principal{ID: "user:dave@example.com", Groups: []string{"security"}}
	erin  = policy.Principal{ID: "user:erin@example.com", Groups: []string{"security"}}
	mal   = policy.Principal{ID: "user:mallory@example.com", Groups: []string{"staff"}}
)

func sample() approval.Request {
	return approval.Request{
		Principal: carol, Agent: "documents", Purpose: "fix the hr handbook",
		PolicyRevision: "rev1", Wait: time.Hour,
		Grants: []approval.Grant{{
			Grant: "documents:write", Rule: "carol-hr-write", Operations: []string{"write"},
			Resources: []policy.Resource{{ID: "doc-9", DisplayName: "HR handbook", Collection: "hr"}},
			TTL:       15 * time.Minute, Approvers: &policy.Approvers{Groups: []string{"security"}},
		}},
	}
}

// world is one or two Desks over the same storage, with a shared clock
// and audit buffer.
type world struct {
	clk   *clock
	audit *bytes.Buffer
	a, b  approval.Store
}

func newWorld(t *testing.T, opts approval.Options, backend func(now func() time.Time) approval.Backend) *world {
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	w := &world{clk: clk, audit: &bytes.Buffer{}}
	opts.Now, opts.Audit = clk.Now, slog.New(slog.NewJSONHandler(w.audit, nil))
	w.a = approval.NewDesk(backend(clk.Now), opts)
	w.b = approval.NewDesk(backend(clk.Now), opts)
	return w
}

var recordKey = []byte("0123456789abcdef0123456789abcdef")

// run runs f against memory (both desks on one Memory) and against Redis
// (two desks, two clients, one server: two replicas).
func run(t *testing.T, f func(t *testing.T, w *world)) {
	runWith(t, approval.Options{}, f)
}

// runWith is run with the desks' options (clock and audit aside).
func runWith(t *testing.T, opts approval.Options, f func(t *testing.T, w *world)) {
	t.Run("memory", func(t *testing.T) {
		var m *approval.Memory
		f(t, newWorld(t, opts, func(now func() time.Time) approval.Backend {
			if m == nil {
				m = approval.NewMemory(now)
			}
			return m
		}))
	})
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t)
		f(t, newWorld(t, opts, func(now func() time.Time) approval.Backend {
			b, err := approval.Sealed(approval.NewRedis(srv.NewClient(nil), "capgate:", time.Second, now), recordKey)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}))
	})
}

func TestApproveOnOneReplicaRedeemOnAnother(t *testing.T) {
	run(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		r, err := w.a.Create(ctx, sample())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.ID, approval.IDPrefix) || r.Status != approval.StatusPending || !r.Deadline.Equal(w.clk.Now().Add(time.Hour)) {
			t.Fatalf("created %+v", r)
		}
		if _, err := w.b.Redeem(ctx, r.ID, carol, "documents"); !errors.Is(err, approval.ErrPending) {
			t.Fatalf("redeem pending: %v", err)
		}
		if _, err := w.b.Approve(ctx, r.ID, dave, "ok for the audit"); err != nil {
			t.Fatal(err)
		}
		got, err := w.a.Redeem(ctx, r.ID, carol, "documents")
		if err != nil || got.Status != approval.StatusRedeemed || got.DecidedBy != dave.ID || got.Grants[0].Resources[0].ID != "doc-9" {
			t.Fatalf("redeem: %+v %v", got, err)
		}
		if _, err := w.b.Redeem(ctx, r.ID, carol, "documents"); !errors.Is(err, approval.ErrRedeemed) {
			t.Fatalf("second redeem: %v, want ErrRedeemed", err)
		}
		for _, ev := range []string{approval.EventRequested, approval.EventApproved, approval.EventRedeemed} {
			if !strings.Contains(w.audit.String(), `"msg":"`+ev+`"`) {
				t.Errorf("audit lacks %s:\n%s", ev, w.audit)
			}
		}
		if !strings.Contains(w.audit.String(), `"approver":"user:dave@example.com"`) || !strings.Contains(w.audit.String(), `"purpose":"fix the hr handbook"`) {
			t.Errorf("audit lacks approver or purpose:\n%s", w.audit)
		}
		if n := strings.Count(w.audit.String(), `"action_hash":"`+r.ActionHash+`"`); n != 3 {
			t.Errorf("%d audit events name the action hash %s, want 3:\n%s", n, r.ActionHash, w.audit)
		}
	})
}

func TestRulesOfApproval(t *testing.T) {
	run(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		r, _ := w.a.Create(ctx, sample())
		selfish := policy.Principal{ID: carol, Groups: []string{"security"}}
		tests := []struct {
			name    string
			who     policy.Principal
			wantErr error
		}{
			{"self approval", selfish, approval.ErrSelfApproval},
			{"not an approver", mal, approval.ErrNotApprover},
		}
		for _, tt := range tests {
			if _, err := w.a.Approve(ctx, r.ID, tt.who, "x"); !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
			}
		}
		if _, err := w.a.Redeem(ctx, r.ID, mal.ID, "documents"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("redeem by another principal: %v, want ErrNotFound", err)
		}
		if _, err := w.a.Redeem(ctx, r.ID, carol, "summarizer"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("redeem at another agent: %v, want ErrNotFound", err)
		}
		if _, err := w.a.Deny(ctx, r.ID, dave, "no ticket"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.b.Approve(ctx, r.ID, erin, "x"); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("approve after deny: %v", err)
		}
		got, err := w.b.Redeem(ctx, r.ID, carol, "documents")
		if !errors.Is(err, approval.ErrDenied) || got.Reason != "no ticket" {
			t.Errorf("redeem denied: %+v %v", got, err)
		}
		if _, err := w.a.Get(ctx, "apr_nope"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("get unknown: %v", err)
		}
	})
}

func TestExpiry(t *testing.T) {
	run(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		pending, _ := w.a.Create(ctx, sample())
		w.clk.add(time.Minute)
		other := sample()
		other.Purpose = "fix the hr handbook again"
		approved, _ := w.a.Create(ctx, other)
		w.clk.add(29 * time.Minute)
		if _, err := w.a.Approve(ctx, approved.ID, dave, "ok"); err != nil {
			t.Fatal(err)
		}
		w.clk.add(31 * time.Minute) // past pending's deadline, not approved's
		if _, err := w.b.Approve(ctx, pending.ID, dave, "late"); !errors.Is(err, approval.ErrExpired) {
			t.Fatalf("approve expired: %v", err)
		}
		if r, _ := w.b.Get(ctx, pending.ID); r.Status != approval.StatusExpired {
			t.Fatalf("status %s", r.Status)
		}
		w.clk.add(30 * time.Minute) // past approved's deadline
		if _, err := w.b.Redeem(ctx, approved.ID, carol, "documents"); !errors.Is(err, approval.ErrExpired) {
			t.Fatalf("redeem expired: %v", err)
		}
		if _, err := w.a.Redeem(ctx, approved.ID, carol, "documents"); !errors.Is(err, approval.ErrExpired) {
			t.Fatalf("redeem expired again: %v", err)
		}
		if n := strings.Count(w.audit.String(), approval.EventExpired); n != 2 {
			t.Errorf("expired events = %d, want 2 (one per request):\n%s", n, w.audit)
		}
		list, err := w.a.List(ctx, approval.Filter{Status: approval.StatusExpired})
		if err != nil || len(list) != 2 || list[0].ID != approved.ID {
			t.Errorf("list expired: %d %v", len(list), err)
		}
	})
}

// TestRedeemOnceUnderRace redeems one approval from many goroutines on two
// replicas: exactly one wins.
func TestRedeemOnceUnderRace(t *testing.T) {
	run(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		r, _ := w.a.Create(ctx, sample())
		if _, err := w.a.Approve(ctx, r.ID, dave, "ok"); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := range 16 {
			s := []approval.Store{w.a, w.b}[i%2]
			wg.Go(func() {
				if _, err := s.Redeem(ctx, r.ID, carol, "documents"); err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, approval.ErrRedeemed) {
					t.Errorf("redeem: %v", err)
				}
			})
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d redemptions succeeded, want 1", wins)
		}
	})
}

func TestCreateRejectsIncomplete(t *testing.T) {
	d := approval.NewDesk(approval.NewMemory(time.Now), approval.Options{})
	r := sample()
	r.Grants[0].Approvers = nil
	if _, err := d.Create(context.Background(), r); !errors.Is(err, approval.ErrInvalid) {
		t.Fatalf("no approvers: %v", err)
	}
}

func TestPublicHidesResourceIDs(t *testing.T) {
	r := sample()
	p := r.Public()
	if p.Grants[0].Resources[0].ID != "" || p.Grants[0].Resources[0].DisplayName != "HR handbook" || r.Grants[0].Resources[0].ID != "doc-9" {
		t.Fatalf("public %+v, original %+v", p.Grants[0].Resources, r.Grants[0].Resources)
	}
}

// TestForgedRecordIsNeverUsed writes an approved record straight into
// Redis, as someone holding the Redis password could: it is neither
// listed (only named) nor redeemable, and a sealed record whose status is flipped to
// approved is refused too.
func TestForgedRecordIsNeverUsed(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	raw := approval.NewRedis(srv.Client, "capgate:", time.Second, time.Now)
	b, err := approval.Sealed(raw, recordKey)
	if err != nil {
		t.Fatal(err)
	}
	d := approval.NewDesk(b, approval.Options{})
	r, err := d.Create(ctx, sample())
	if err != nil {
		t.Fatal(err)
	}
	// Flip the sealed record's status without the key.
	key := "capgate:apr:" + r.ID
	stored, err := srv.Client.Get(ctx, key).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	flipped := strings.Replace(string(stored), `"status":"pending"`, `"status":"approved","decidedBy":"user:dave@example.com"`, 1)
	if err := srv.Client.Set(ctx, key, flipped, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	// And store an unsealed approved record.
	forged := sample()
	forged.ID, forged.Status, forged.Deadline, forged.CreatedAt = "apr_forged", approval.StatusApproved, time.Now().Add(time.Hour), time.Now()
	if err := raw.Put(ctx, forged); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{r.ID, "apr_forged"} {
		if _, err := d.Redeem(ctx, id, carol, "documents"); !errors.Is(err, approval.ErrForged) {
			t.Errorf("redeem %s: %v, want ErrForged", id, err)
		}
		if _, err := d.Get(ctx, id); !errors.Is(err, approval.ErrForged) {
			t.Errorf("get %s: %v, want ErrForged", id, err)
		}
	}
	list, err := d.List(ctx, approval.Filter{})
	named, partial := approval.Partial(err)
	if len(list) != 0 || !partial || !slices.Equal(named, sortedIDs(r.ID, "apr_forged")) {
		t.Errorf("list shows forged records or does not name them: %d %v", len(list), err)
	}
	if _, err := approval.Sealed(raw, []byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}

// TestRemovedApproverCannotDecide: an approver the policy in force no
// longer names cannot decide a request held while it did; the request
// still waits for one it names.
func TestRemovedApproverCannotDecide(t *testing.T) {
	current := policy.Approvers{Groups: []string{"security"}}
	d := approval.NewDesk(approval.NewMemory(time.Now), approval.Options{Approvers: func() policy.Approvers { return current }})
	ctx := context.Background()
	r, err := d.Create(ctx, sample())
	if err != nil {
		t.Fatal(err)
	}
	current = policy.Approvers{Groups: []string{"auditors"}}
	if _, err := d.Approve(ctx, r.ID, dave, "still here?"); !errors.Is(err, approval.ErrNotApprover) {
		t.Fatalf("approve by a removed approver: %v, want ErrNotApprover", err)
	}
	if got, _ := d.Get(ctx, r.ID); got.Status != approval.StatusPending {
		t.Fatalf("status %s after a refused decision", got.Status)
	}
	current = policy.Approvers{Groups: []string{"security"}}
	if _, err := d.Approve(ctx, r.ID, dave, "named again"); err != nil {
		t.Fatalf("approve by a named approver: %v", err)
	}
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}
