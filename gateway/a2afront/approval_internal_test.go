package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

const daveKey = "dave-dev-key"

// approvalPolicy gives finance the reports, once security approves, with
// the operations, max_ttl and depth given.
func approvalPolicy(t testing.TB, ops string, ttl string, depth int, approvalNeeded bool) *policy.Policy {
	t.Helper()
	src := `version: 1
rules:
  - id: finance-reports
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    operations: ` + ops + `
    resources: {collection: reports}
    max_ttl: ` + ttl + `
    max_delegation_depth: ` + strconv.Itoa(depth) + "\n"
	if approvalNeeded {
		src += "    approval: {approvers: {groups: [security]}, wait: 1h}\n"
	}
	p, _, err := policy.Load(context.Background(), []byte(src), "approval.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// swappable is a policy source that tests can reload.
type swappable struct{ p atomic.Pointer[policy.Policy] }

func (s *swappable) Current() *policy.Policy { return s.p.Load() }

// approvalFixture is the fixture with an approval desk, the policy above
// and dave, an approver in group security.
type approvalFixture struct {
	*fixture
	desk  *approval.Desk
	mem   *approval.Memory
	pol   *swappable
	audit *bytes.Buffer
}

func newApprovalFixture(t testing.TB) *approvalFixture {
	fx := &approvalFixture{fixture: newFixture(t), pol: &swappable{}, audit: &bytes.Buffer{}}
	fx.now = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var err error
	fx.authn, err = authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey(aliceKey), Principal: "user:alice@example.com", Groups: []string{"finance"}},
		{Hash: authn.HashKey(daveKey), Principal: "user:dave@example.com", Groups: []string{"security"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fx.pol.p.Store(approvalPolicy(t, "[retrieve, search, list]", "1h", 1, true))
	clock := func() time.Time { return fx.now }
	fx.mem = approval.NewMemory(clock)
	fx.desk = approval.NewDesk(fx.mem, approval.Options{Now: clock, Audit: slog.New(slog.NewJSONHandler(fx.audit, nil))})
	fx.front.deps.Policy, fx.front.deps.Approvals = fx.pol, fx.desk
	return fx
}

// request sends a2a/capabilities/request with params as alice.
func (fx *approvalFixture) request(t testing.TB, params string) *jsonrpc.Response {
	t.Helper()
	out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
		`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":`+params+`}`))
	if out.resp == nil {
		t.Fatalf("no answer for %s", params)
	}
	return out.resp
}

func (fx *approvalFixture) pending(t testing.TB, params string) sep.PendingResult {
	t.Helper()
	resp := fx.request(t, params)
	var pr sep.PendingResult
	raw, _ := json.Marshal(resp.Result)
	if resp.Error != nil || json.Unmarshal(raw, &pr) != nil || pr.Status != "pending" || !strings.HasPrefix(pr.ApprovalID, "apr_") {
		t.Fatalf("want a pending result, got %s %+v", raw, resp.Error)
	}
	return pr
}

func (fx *approvalFixture) redeem(t *testing.T, id string) *jsonrpc.Response {
	return fx.request(t, `{"approvalId":"`+id+`"}`)
}

func (fx *approvalFixture) approve(t *testing.T, id string) {
	t.Helper()
	dave := policy.Principal{ID: "user:dave@example.com", Groups: []string{"security"}}
	if _, err := fx.desk.Approve(context.Background(), id, dave, "quarter close"); err != nil {
		t.Fatal(err)
	}
}

func issued(t *testing.T, resp *jsonrpc.Response) []sep.Capability {
	t.Helper()
	var res sep.CapabilitiesResult
	raw, _ := json.Marshal(resp.Result)
	if resp.Error != nil || json.Unmarshal(raw, &res) != nil || len(res.Capabilities) == 0 {
		t.Fatalf("want capabilities, got %s %+v", raw, resp.Error)
	}
	return res.Capabilities
}

func wantDenied(t *testing.T, resp *jsonrpc.Response, text string) {
	t.Helper()
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeGrantDenied || !strings.Contains(resp.Error.Message, text) {
		t.Fatalf("want grant_denied %q, got %+v", text, resp.Error)
	}
}

func (fx *approvalFixture) claims(t *testing.T, c sep.Capability) *captoken.Claims {
	t.Helper()
	cl, err := fx.front.deps.Verifier.Verify(context.Background(), c.Token, captoken.Expected{})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func TestApprovalPendingThenIssuedOnce(t *testing.T) {
	fx := newApprovalFixture(t)
	pr := fx.pending(t, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"},"purpose":"Quarter close"}`)
	if idx, _ := fx.index.ListByPrincipal(context.Background(), "user:alice@example.com"); len(idx) != 0 {
		t.Fatalf("a pending request minted %d capabilities", len(idx))
	}
	if again := fx.pending(t, `{"approvalId":"`+pr.ApprovalID+`"}`); again.ApprovalID != pr.ApprovalID {
		t.Fatalf("asking again while pending: %+v", again)
	}
	stored, _ := fx.desk.Get(context.Background(), pr.ApprovalID)
	if names := []string{stored.Grants[0].Resources[0].DisplayName, stored.Grants[0].Resources[1].DisplayName}; !slices.Equal(names, []string{"Q1 Financial Summary", "Q1 Sales Report"}) ||
		stored.Purpose != "Quarter close" || stored.PolicyRevision != fx.pol.Current().Revision() || stored.Grants[0].TTL != time.Hour {
		t.Fatalf("stored request %+v", stored)
	}
	fx.now = fx.now.Add(10 * time.Minute)
	fx.approve(t, pr.ApprovalID)
	caps := issued(t, fx.redeem(t, pr.ApprovalID))
	cl := fx.claims(t, caps[0])
	if !slices.Equal(cl.Operations, []string{"retrieve", "search", "list"}) || len(cl.Handles) != 2 || cl.MaxDepth != 1 ||
		!cl.Expiry.Time().Equal(fx.now.Add(time.Hour)) || cl.Purpose != "Quarter close" {
		t.Fatalf("issued claims %+v", cl)
	}
	wantDenied(t, fx.redeem(t, pr.ApprovalID), "already used")
	if n := len(fx.upstream.calls("a2a/capabilities/request")); n != 0 {
		t.Fatalf("upstream saw %d capability requests", n)
	}
	for _, ev := range []string{approval.EventRequested, approval.EventApproved, approval.EventRedeemed} {
		if !strings.Contains(fx.audit.String(), ev) {
			t.Errorf("audit lacks %s", ev)
		}
	}
}

// TestApprovalNeverWidens approves a narrow request, then widens the
// policy: redemption issues what was approved, not what is now allowed.
func TestApprovalNeverWidens(t *testing.T) {
	fx := newApprovalFixture(t)
	pr := fx.pending(t, `{"grants":["documents:read"],"operations":["retrieve"],"resourceQuery":{"collection":"reports","filter":{"quarter":"2025-Q1"}}}`)
	fx.approve(t, pr.ApprovalID)
	fx.pol.p.Store(approvalPolicy(t, "[retrieve, search, list]", "8h", 3, false))
	cl := fx.claims(t, issued(t, fx.redeem(t, pr.ApprovalID))[0])
	if !slices.Equal(cl.Operations, []string{"retrieve"}) || cl.MaxDepth != 1 || !cl.Expiry.Time().Equal(fx.now.Add(time.Hour)) {
		t.Fatalf("redemption widened: ops %v depth %d expiry %v", cl.Operations, cl.MaxDepth, cl.Expiry.Time())
	}
}

// TestApprovalNarrowedByNewPolicy approves a request, then narrows the
// policy: redemption issues exactly what was approved, or nothing (the
// approval is used up either way), and the upstream sees nothing.
func TestApprovalNarrowedByNewPolicy(t *testing.T) {
	empty, _, err := policy.Load(context.Background(), []byte("version: 1\nrules: []\n"), "empty.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		policy *policy.Policy
		issues bool
	}{
		{"unchanged", approvalPolicy(t, "[retrieve, search, list]", "1h", 1, true), true},
		{"without approval now", approvalPolicy(t, "[retrieve, search, list]", "1h", 1, false), true},
		{"fewer operations", approvalPolicy(t, "[list, retrieve]", "1h", 1, true), false},
		{"shorter lifetime", approvalPolicy(t, "[retrieve, search, list]", "5m", 1, true), false},
		{"lower depth", approvalPolicy(t, "[retrieve, search, list]", "1h", 0, true), false},
		{"no rule left", empty, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := newApprovalFixture(t)
			pr := fx.pending(t, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`)
			fx.approve(t, pr.ApprovalID)
			fx.pol.p.Store(tc.policy)
			resp := fx.redeem(t, pr.ApprovalID)
			if !tc.issues {
				wantDenied(t, resp, "no longer allows")
				if idx, _ := fx.index.ListByPrincipal(context.Background(), "user:alice@example.com"); len(idx) != 0 {
					t.Fatalf("minted %d capabilities", len(idx))
				}
				wantDenied(t, fx.redeem(t, pr.ApprovalID), "already used")
				if n := len(fx.upstream.calls("a2a/capabilities/request")); n != 0 {
					t.Fatalf("upstream saw %d capability requests", n)
				}
				return
			}
			cl := fx.claims(t, issued(t, resp)[0])
			if !slices.Equal(cl.Operations, []string{"retrieve", "search", "list"}) || cl.MaxDepth != 1 ||
				!cl.Expiry.Time().Equal(fx.now.Add(time.Hour)) || len(cl.Handles) != 2 {
				t.Fatalf("not exactly what was approved: %+v", cl)
			}
		})
	}
}

func TestApprovalDeniedAndExpired(t *testing.T) {
	fx := newApprovalFixture(t)
	params := `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`
	denied := fx.pending(t, params)
	dave := policy.Principal{ID: "user:dave@example.com", Groups: []string{"security"}}
	if _, err := fx.desk.Deny(context.Background(), denied.ApprovalID, dave, "no ticket for this"); err != nil {
		t.Fatal(err)
	}
	resp := fx.redeem(t, denied.ApprovalID)
	wantDenied(t, resp, "no ticket for this")
	if data, _ := resp.Error.Data.(map[string]any); data["approverReason"] != "no ticket for this" || data["deniedBy"] != dave.ID {
		t.Fatalf("denial data %+v", resp.Error.Data)
	}

	late := fx.pending(t, params)
	fx.now = fx.now.Add(61 * time.Minute)
	wantDenied(t, fx.redeem(t, late.ApprovalID), "expired")
	if !strings.Contains(fx.audit.String(), approval.EventExpired) {
		t.Errorf("no expired event")
	}

	resp = fx.redeem(t, "apr_unknown")
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("unknown approval id: %+v", resp.Error)
	}
}

// TestApprovalWithoutStoreFailsClosed checks that a gateway without an
// approval store refuses, rather than issues, what needs approval.
func TestApprovalWithoutStoreFailsClosed(t *testing.T) {
	fx := newApprovalFixture(t)
	fx.front.deps.Approvals = nil
	wantDenied(t, fx.request(t, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`), "needs human approval")
	if idx, _ := fx.index.ListByPrincipal(context.Background(), "user:alice@example.com"); len(idx) != 0 {
		t.Fatal("minted without approval")
	}
}

// TestApprovalRedeemedOnlyAtItsAgent checks that an approval for the
// documents agent cannot be redeemed through another agent's endpoint,
// and stays redeemable where it belongs.
func TestApprovalRedeemedOnlyAtItsAgent(t *testing.T) {
	fx := newApprovalFixture(t)
	pr := fx.pending(t, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`)
	fx.approve(t, pr.ApprovalID)
	out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "summarizer",
		`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"approvalId":"`+pr.ApprovalID+`"}}`))
	if out.resp == nil || out.resp.Error == nil || out.resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("redeemed at another agent: %+v", out.resp)
	}
	// Nothing was used up: the approval is still approved, where it belongs.
	if r, err := fx.front.deps.Approvals.Get(context.Background(), pr.ApprovalID); err != nil || r.Status != approval.StatusApproved {
		t.Fatalf("after a redemption at another agent: %+v, %v", r, err)
	}
	issued(t, fx.redeem(t, pr.ApprovalID))
}

// TestApprovalPendingBound: a repeat of the same ask answers the waiting
// request; a principal past the bound on waiting requests is rate
// limited, naming the limit, and nothing is recorded.
func TestApprovalPendingBound(t *testing.T) {
	fx := newApprovalFixture(t)
	clock := func() time.Time { return fx.now }
	fx.mem = approval.NewMemory(clock)
	fx.desk = approval.NewDesk(fx.mem, approval.Options{Now: clock, MaxPending: 2})
	fx.front.deps.Approvals = fx.desk
	ask := func(purpose string) string {
		return `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"},"purpose":"` + purpose + `"}`
	}
	first := fx.pending(t, ask("q1"))
	if again := fx.pending(t, ask("q1")); again.ApprovalID != first.ApprovalID {
		t.Fatalf("the same ask made a new request %s, want %s", again.ApprovalID, first.ApprovalID)
	}
	fx.pending(t, ask("q2"))
	resp := fx.request(t, ask("q3"))
	data, _ := resp.Error.Data.(map[string]any)
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeRateLimited || data["limit"] != "pending_approvals" || data["max"] != 2 {
		t.Fatalf("want rate_limited naming pending_approvals, got %+v", resp.Error)
	}
	if list, _ := fx.desk.List(context.Background(), approval.Filter{}); len(list) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(list))
	}
}

// TestApprovalNoLongerItsAction: an approved request whose stored content
// changed after its hash was taken (a resource swapped in the store) is
// refused as such, issues nothing, and the upstream sees nothing.
func TestApprovalNoLongerItsAction(t *testing.T) {
	fx := newApprovalFixture(t)
	pr := fx.pending(t, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`)
	fx.approve(t, pr.ApprovalID)
	if _, err := fx.mem.Update(context.Background(), pr.ApprovalID, func(r *approval.Request) (bool, error) {
		r.Grants[0].Resources = r.Grants[0].Resources[:1]
		r.Grants[0].Resources[0].ID = "reports/another"
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	wantDenied(t, fx.redeem(t, pr.ApprovalID), "no longer holds what was approved")
	if idx, _ := fx.index.ListByPrincipal(context.Background(), "user:alice@example.com"); len(idx) != 0 {
		t.Fatalf("minted %d capabilities", len(idx))
	}
	if n := len(fx.upstream.calls("a2a/capabilities/request")); n != 0 {
		t.Fatalf("upstream saw %d capability requests", n)
	}
}
