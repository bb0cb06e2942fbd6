package approval_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/revocation"
	"github.com/capgate/capgate/revocation/redistest"
)

// replica is one gateway's approval desk over a shared Redis, with the
// Synced revocation store the gateway gives it as its ledger.
func replica(t *testing.T, srv *redistest.Server, audit *bytes.Buffer) approval.Store {
	t.Helper()
	ctx := t.Context()
	client := srv.NewClient(nil)
	rs, err := revocation.NewRedis(ctx, client, revocation.RedisOptions{Prefix: "capgate:", Timeout: 2 * time.Second, InitGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	synced, err := revocation.NewSynced(ctx, rs, revocation.SyncedOptions{MaxStaleness: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synced.Close() })
	b, err := approval.Sealed(approval.NewRedis(client, "capgate:", 2*time.Second, time.Now), recordKey)
	if err != nil {
		t.Fatal(err)
	}
	return approval.NewDesk(b, approval.Options{Audit: slog.New(slog.NewJSONHandler(audit, nil)), Ledger: synced})
}

// TestRolledBackApprovalIsNotRedeemedAgain plays someone who can write the
// approvals' Redis: they save a request's sealed record, let the requester
// redeem it, and write the saved bytes back with SET. Two replicas share
// the Redis; neither redeems the request again, even when the ledger's
// own key is deleted too (the replicas remember it), and even when the
// rollback brings back a pending record that an approver approves anew.
func TestRolledBackApprovalIsNotRedeemedAgain(t *testing.T) {
	srv := redistest.Start(t)
	var audit bytes.Buffer
	a, b := replica(t, srv, &audit), replica(t, srv, &audit)
	ctx := context.Background()
	save := func(id string) []byte {
		saved, err := srv.Client.Get(ctx, "capgate:apr:"+id).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return saved
	}
	for _, tc := range []struct {
		name string
		// saveBeforeApproval rolls back to the pending record.
		saveBeforeApproval bool
		deleteLedgerKey    bool
	}{
		{name: "approved record written back"},
		{name: "ledger key deleted too", deleteLedgerKey: true},
		{name: "pending record written back and approved again", saveBeforeApproval: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := a.Create(ctx, sample())
			if err != nil {
				t.Fatal(err)
			}
			var saved []byte
			if tc.saveBeforeApproval {
				saved = save(r.ID)
			}
			if _, err := b.Approve(ctx, r.ID, dave, "ok"); err != nil {
				t.Fatal(err)
			}
			if !tc.saveBeforeApproval {
				saved = save(r.ID)
			}
			if _, err := a.Redeem(ctx, r.ID, carol, "documents"); err != nil {
				t.Fatalf("first redemption: %v", err)
			}
			if err := srv.Client.Set(ctx, "capgate:apr:"+r.ID, saved, time.Hour).Err(); err != nil {
				t.Fatal(err)
			}
			if tc.deleteLedgerKey {
				if n, err := srv.Client.Del(ctx, "capgate:rev:i:"+r.ID).Result(); err != nil || n != 1 {
					t.Fatalf("deleting the ledger key: %d %v", n, err)
				}
			}
			if tc.saveBeforeApproval {
				if _, err := a.Approve(ctx, r.ID, erin, "looks new to me"); err != nil {
					t.Fatalf("approving the rolled-back request: %v", err)
				}
			}
			for name, s := range map[string]approval.Store{"a": a, "b": b} {
				if _, err := s.Redeem(ctx, r.ID, carol, "documents"); !errors.Is(err, approval.ErrRedeemed) {
					t.Errorf("replica %s redeemed the rolled-back record: %v, want ErrRedeemed", name, err)
				}
			}
		})
	}
	if !strings.Contains(audit.String(), `"msg":"`+approval.EventReplayed+`"`) {
		t.Errorf("audit lacks %s:\n%s", approval.EventReplayed, audit.String())
	}
}

// brokenLedger fails the call named by fail.
type brokenLedger struct {
	revocation.Store
	fail string
}

var errLedgerDown = errors.New("ledger down")

func (l brokenLedger) Check(ctx context.Context, q revocation.Query) (revocation.Result, error) {
	if l.fail == "check" {
		return revocation.Result{}, errLedgerDown
	}
	return l.Store.Check(ctx, q)
}

func (l brokenLedger) Revoke(ctx context.Context, id string, until time.Time) error {
	if l.fail == "revoke" {
		return errLedgerDown
	}
	return l.Store.Revoke(ctx, id, until)
}

// TestRedeemFailsClosedWithoutLedger: a ledger that cannot answer or
// cannot record refuses the redemption (ErrUnavailable), and the approval
// stays usable once it recovers; a request that may not be redeemed
// anyway is refused for its own reason without a ledger call.
func TestRedeemFailsClosedWithoutLedger(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, fail string
		approve    bool
		wantErr    error
	}{
		{"check fails", "check", true, approval.ErrUnavailable},
		{"revoke fails", "revoke", true, approval.ErrUnavailable},
		{"pending request, ledger down", "check", false, approval.ErrPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := revocation.NewMemory(revocation.MemoryOptions{})
			backend := approval.NewMemory(time.Now)
			d := approval.NewDesk(backend, approval.Options{Ledger: brokenLedger{Store: mem, fail: tc.fail}})
			r, err := d.Create(ctx, sample())
			if err != nil {
				t.Fatal(err)
			}
			if tc.approve {
				if _, err := d.Approve(ctx, r.ID, dave, "ok"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := d.Redeem(ctx, r.ID, carol, "documents"); !errors.Is(err, tc.wantErr) {
				t.Fatalf("redeem: %v, want %v", err, tc.wantErr)
			}
			if !tc.approve {
				return
			}
			healed := approval.NewDesk(backend, approval.Options{Ledger: mem})
			if _, err := healed.Redeem(ctx, r.ID, carol, "documents"); err != nil {
				t.Fatalf("redeem once the ledger is back: %v", err)
			}
		})
	}
}
