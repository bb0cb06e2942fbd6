package console_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/console"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
	"github.com/capgate/capgate/revocation"
)

// Dev keys of the fixture's operators.
const (
	adminKey    = "admin-console-key"
	approverKey = "security-console-key"
	aliceKey    = "alice-console-key"
	// secretResource is a real resource id sealed in the tokens: no page
	// may ever show it.
	secretResource = "res-7f3a-secret-q1"
)

// fixture is a console on real stores: dev keys, a memory index holding a
// three-level delegation chain, a memory revocation store, the admin API
// as revoker, the quickstart policy, an audit file and fake approvals.
type fixture struct {
	srv       *httptest.Server
	index     *capindex.Memory
	verifier  *captoken.Verifier
	revs      *revocation.Memory
	approvals *fakeApprovals
	auditFile string
	// chain holds the root, child and grandchild records, root first.
	chain []capindex.Record
}

type fixtureOptions struct {
	oidc    *config.ConsoleOIDC
	issuers []authn.IssuerConfig
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{index: capindex.NewMemory(time.Now), approvals: newFakeApprovals()}
	f.revs = revocation.NewMemory(revocation.MemoryOptions{})
	t.Cleanup(func() { f.revs.Close() })
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	f.verifier, err = captoken.NewVerifier(ks, captoken.VerifierConfig{Issuer: "https://gw.test",
		Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Leeway: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f.chain = seedChain(t, ks, f.index)
	au, err := authn.New(ctx, fo.issuers, []authn.DevKey{
		{Hash: authn.HashKey(adminKey), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
		{Hash: authn.HashKey(approverKey), Principal: "user:sec@example.com", Groups: []string{"security"}},
		{Hash: authn.HashKey(aliceKey), Principal: "user:alice@example.com", Groups: []string{"finance"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	auditLog := f.openAudit(t)
	pol := staticPolicy{quickstartPolicy(t)}
	logger := slog.New(slog.DiscardHandler)
	access := config.AdminAccess{Groups: []string{"capgate-admins"}}
	api := admin.New(admin.Config{Access: access, MaxTTL: time.Hour}, admin.Deps{
		Authenticator: au, Index: f.index, Verifier: f.verifier, Revocations: f.revs,
		Policy: pol, Audit: auditLog, Logger: logger, Now: time.Now})
	c, err := console.New(console.Config{Access: access, Approvers: config.AdminAccess{Groups: []string{"security"}},
		DevLogin: true, OIDC: fo.oidc, AuditFile: f.auditFile}, console.Deps{
		Authenticator: au, Index: f.index, Verifier: f.verifier, Revocations: f.revs, Revoker: api,
		Policy: pol, Approvals: f.approvals, Logger: logger, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(c.Handler())
	t.Cleanup(f.srv.Close)
	return f
}

// seedChain mints alice's root capability, an attenuation held by the
// summarizer and a further one held by a helper agent.
func seedChain(t *testing.T, ks *captoken.KeySet, ix *capindex.Memory) []capindex.Record {
	t.Helper()
	now := time.Now().Truncate(time.Second)
	var out []capindex.Record
	var parent *captoken.Claims
	for depth, holder := range []string{"user:alice@example.com", "agent:summarizer", "agent:helper"} {
		c := captoken.Claims{Issuer: "https://gw.test", Principal: "user:alice@example.com", Holder: holder,
			Audience: "documents", CapabilityID: captoken.NewCapabilityID(), Grant: "documents:read",
			Operations: []string{"read", "list"}[:2-min(depth, 1)], Handles: []string{"rh_q1"},
			Expiry: captoken.NewNumericDate(now.Add(time.Hour)), IssuedAt: captoken.NewNumericDate(now.Add(time.Duration(depth-3) * time.Second)),
			RevocationID: captoken.NewRevocationID(), Depth: depth, MaxDepth: 3, Attenuable: true, Purpose: "quarterly review"}
		if parent != nil {
			c.ParentCapabilityID = parent.CapabilityID
			c.Ancestors = append(append([]string(nil), parent.Ancestors...), parent.RevocationID)
		}
		tok, err := captoken.Mint(ks, c, map[string]string{"rh_q1": secretResource})
		if err != nil {
			t.Fatal(err)
		}
		rec := capindex.Record{CapabilityID: c.CapabilityID, Token: tok, Principal: c.Principal, Holder: holder,
			Agent: c.Audience, Grant: c.Grant, ParentID: c.ParentCapabilityID,
			DisplayNames: map[string]string{"rh_q1": "Q1 report"}, IssuedAt: c.IssuedAt.Time(), Expires: c.Expiry.Time()}
		if err := ix.Put(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		out, parent = append(out, rec), &c
	}
	return out
}

// openAudit starts an audit file with a few events and returns its logger.
func (f *fixture) openAudit(t *testing.T) *slog.Logger {
	t.Helper()
	f.auditFile = filepath.Join(t.TempDir(), "audit.jsonl")
	file, err := os.OpenFile(f.auditFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	log := slog.New(audit.NewHandler(file, audit.Options{Chain: "replica-1"}))
	log.Info("capability.issue", "principal", "user:alice@example.com", "agent", "documents",
		"grant", "documents:read", "decision", "allow", "purpose", "quarterly review")
	log.Info("capability.invoke", "principal", "user:alice@example.com", "holder", "agent:summarizer",
		"agent", "documents", "decision", "allow")
	return log
}

func quickstartPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	path := filepath.Join("..", "..", "deploy", "examples", "quickstart", "policy.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := policy.Load(context.Background(), data, path, policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// staticPolicy serves one policy.
type staticPolicy struct{ p *policy.Policy }

func (s staticPolicy) Current() *policy.Policy { return s.p }

// fakeApprovals is an approval store in memory, with the rules the
// console relies on: no self-approval, a decision only once.
type fakeApprovals struct {
	mu        sync.Mutex
	pending   []console.PendingApproval
	decisions []string
}

func newFakeApprovals() *fakeApprovals {
	now := time.Now()
	return &fakeApprovals{pending: []console.PendingApproval{{
		ID: "apr_1", Principal: "user:carol@example.com", Agent: "documents", Grant: "documents:write",
		Operations: []string{"write"}, Resources: []string{"HR handbook"}, TTL: 15 * time.Minute, Depth: 0,
		Purpose: "fix the parental leave section", Rule: "carol-hr-write-needs-approval",
		PolicyRevision: "sha256:1f2e3d", Approvers: []string{"group:security"},
		Requested: now, Expires: now.Add(time.Hour),
	}}}
}

func (a *fakeApprovals) List(context.Context) ([]console.PendingApproval, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]console.PendingApproval(nil), a.pending...), nil
}

func (a *fakeApprovals) Approve(_ context.Context, id, approver, reason string) error {
	return a.decide(id, approver, "approved: "+reason)
}

func (a *fakeApprovals) Deny(_ context.Context, id, approver, reason string) error {
	return a.decide(id, approver, "denied: "+reason)
}

func (a *fakeApprovals) decide(id, approver, what string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, p := range a.pending {
		if p.ID != id {
			continue
		}
		if p.Principal == approver {
			return console.ErrSelfApproval
		}
		a.pending = append(a.pending[:i], a.pending[i+1:]...)
		a.decisions = append(a.decisions, id+" by "+approver+" "+what)
		return nil
	}
	return console.ErrNotPending
}

func (a *fakeApprovals) Decisions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.decisions...)
}
