package approval_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
)

// TestActionCanonicalForm pins the canonical form of what a request
// issues and its hash: a change here changes every hash an approver saw.
// Order does not matter (grants, operations and resources are sorted);
// what a decision changes is not covered.
func TestActionCanonicalForm(t *testing.T) {
	r := sample()
	r.Grants = append(r.Grants, approval.Grant{Grant: "documents:read", Rule: "carol-hr-write",
		Operations: []string{"retrieve", "list"}, TTL: 90 * time.Second, MaxDepth: 2, Attenuable: true,
		Resources: []policy.Resource{{ID: "doc-9", DisplayName: "HR handbook <2026>"}, {ID: "doc-1", DisplayName: "Onboarding & you"}}})
	got := append(append(r.CanonicalAction(), '\n'), r.ComputeActionHash()+"\n"...)
	golden(t, "action.golden", got)

	same := r
	same.Grants = []approval.Grant{r.Grants[1], r.Grants[0]}
	same.Grants[0].Operations = []string{"list", "retrieve"}
	same.Grants[0].Resources = []policy.Resource{r.Grants[1].Resources[1], r.Grants[1].Resources[0]}
	same.ID, same.Status, same.DecidedBy, same.Reason, same.Deadline = "apr_x", approval.StatusApproved, dave.ID, "ok", time.Now()
	if same.ComputeActionHash() != r.ComputeActionHash() {
		t.Error("the hash depends on order or on the decision")
	}
	for name, change := range map[string]func(*approval.Request){
		"purpose":    func(r *approval.Request) { r.Purpose += "!" },
		"principal":  func(r *approval.Request) { r.Principal = mal.ID },
		"revision":   func(r *approval.Request) { r.PolicyRevision = "rev2" },
		"operation":  func(r *approval.Request) { r.Grants[0].Operations = []string{"write", "delete"} },
		"resource":   func(r *approval.Request) { r.Grants[0].Resources[0].ID = "doc-10" },
		"name":       func(r *approval.Request) { r.Grants[0].Resources[0].DisplayName = "Other" },
		"lifetime":   func(r *approval.Request) { r.Grants[0].TTL++ },
		"depth":      func(r *approval.Request) { r.Grants[0].MaxDepth++ },
		"attenuable": func(r *approval.Request) { r.Grants[0].Attenuable = true },
		"grant":      func(r *approval.Request) { r.Grants = r.Grants[:1] },
	} {
		c := sample()
		c.Grants = append(c.Grants, r.Grants[1])
		c.Grants[0].Resources = append([]policy.Resource(nil), c.Grants[0].Resources...)
		change(&c)
		if c.ComputeActionHash() == r.ComputeActionHash() {
			t.Errorf("%s: the hash does not cover it", name)
		}
	}
}

// TestActionHashBindsTheRequest: Create stores the hash, every audit
// event names it, and a stored request changed after it was taken is
// neither decided nor redeemed.
func TestActionHashBindsTheRequest(t *testing.T) {
	ctx := context.Background()
	m := approval.NewMemory(time.Now)
	d := approval.NewDesk(m, approval.Options{})
	tamper := func(id string, f func(*approval.Request)) {
		t.Helper()
		if _, err := m.Update(ctx, id, func(r *approval.Request) (bool, error) { f(r); return true, nil }); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		before     func(id string) // between Create and Approve
		between    func(id string) // between Approve and Redeem
		wantDecide error
		wantRedeem error
	}{
		{name: "untouched"},
		{name: "widened before the decision", before: func(id string) {
			tamper(id, func(r *approval.Request) { r.Grants[0].Operations = append(r.Grants[0].Operations, "delete") })
		}, wantDecide: approval.ErrActionChanged, wantRedeem: approval.ErrPending},
		{name: "widened after the decision", between: func(id string) {
			tamper(id, func(r *approval.Request) { r.Grants[0].Resources[0].ID = "doc-secret" })
		}, wantRedeem: approval.ErrActionChanged},
		{name: "hash stripped after the decision", between: func(id string) {
			tamper(id, func(r *approval.Request) { r.ActionHash = "" })
		}, wantRedeem: approval.ErrActionChanged},
		{name: "created by an earlier gateway, bound when decided", before: func(id string) {
			tamper(id, func(r *approval.Request) { r.ActionHash = "" })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := d.Create(ctx, sample())
			if err != nil {
				t.Fatal(err)
			}
			if r.ActionHash != r.ComputeActionHash() || !strings.HasPrefix(r.ActionHash, approval.ActionHashPrefix) {
				t.Fatalf("created with hash %q", r.ActionHash)
			}
			if tc.before != nil {
				tc.before(r.ID)
			}
			if _, err := d.Approve(ctx, r.ID, dave, "ok"); !errors.Is(err, tc.wantDecide) {
				t.Fatalf("Approve: %v, want %v", err, tc.wantDecide)
			}
			if tc.between != nil {
				tc.between(r.ID)
			}
			got, err := d.Redeem(ctx, r.ID, carol, "documents")
			if !errors.Is(err, tc.wantRedeem) {
				t.Fatalf("Redeem: %v, want %v", err, tc.wantRedeem)
			}
			if err == nil && got.ActionHash != got.ComputeActionHash() {
				t.Fatalf("redeemed %q, holding %q", got.ActionHash, got.ComputeActionHash())
			}
			if errors.Is(err, approval.ErrActionChanged) && !errors.Is(err, approval.ErrUnavailable) {
				t.Fatal("a changed action is not an unusable record")
			}
		})
	}
}

func TestSeen(t *testing.T) {
	r := sample()
	legacy := r
	r.ActionHash = r.ComputeActionHash()
	tests := []struct {
		name    string
		r       approval.Request
		seen    string
		wantErr error
	}{
		{"the hash shown", r, r.ActionHash, nil},
		{"another hash", r, "sha256:00", approval.ErrOtherAction},
		{"none shown", r, "", approval.ErrOtherAction},
		{"stored without a hash, shown what it holds", legacy, r.ActionHash, nil},
		{"stored without a hash, shown another", legacy, "sha256:00", approval.ErrOtherAction},
	}
	for _, tc := range tests {
		if err := tc.r.Seen(tc.seen); !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: Seen = %v, want %v", tc.name, err, tc.wantErr)
		}
	}
}
