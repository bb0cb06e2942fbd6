package console_test

import (
	"bytes"
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
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/siem"
	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/console"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
	"github.com/capgate/capgate/revocation"
)

// Dev keys of the fixture's operators.
const (
	adminKey    = "admin-console-key"
	approverKey = "security-console-key"
	aliceKey    = "alice-console-key"
	auditorKey  = "auditor-console-key"
	// secretResource is a real resource id sealed in the tokens: no page
	// may ever show it.
	secretResource = "res-7f3a-secret-q1"
)

// fixture is a console on real stores: dev keys, a memory index holding a
// three-level delegation chain, a memory revocation store, the admin API
// as revoker, the quickstart policy, an audit file and an approval desk
// (sealed, on memory) holding one request of carol's.
type fixture struct {
	srv   *httptest.Server
	index *capindex.Memory
	// listed is index as the console and the admin API read it: Break
	// makes records unreadable.
	listed   *capindextest.Unreadable
	verifier *captoken.Verifier
	// keys signs the seeded tokens.
	keys      *captoken.KeySet
	revs      revocation.Store
	approvals *approval.Desk
	// rawApprovals is the memory backend under approvals' seal: writing
	// it forges a record.
	rawApprovals *approval.Memory
	// logs holds what the console logs, as JSON lines.
	logs *syncBuffer
	// pending is the id of carol's waiting request.
	pending   string
	auditFile string
	// refusals bounds the console.refused events (fixtureOptions.refusedEvents).
	refusals *throttle.Throttle
	// auditLog appends chained events to auditFile.
	auditLog *slog.Logger
	// chain holds the root, child and grandchild records, root first.
	chain []capindex.Record
}

type fixtureOptions struct {
	oidc    *config.ConsoleOIDC
	issuers []authn.IssuerConfig
	// approvers are the console's configured approvers; the policy's
	// (group security) enter without them.
	approvers config.AdminAccess
	// listFails, when set, is the error the console's approval listings
	// return with the desk's requests.
	listFails error
	// revocations, when set, replaces the memory revocation store (which
	// also records signed-out sessions).
	revocations revocation.Store
	// sessionKey, when set, seals the cookies: consoles sharing it open
	// each other's sessions, as replicas do.
	sessionKey []byte
	// policy, when set, is the console's policy source instead of the
	// quickstart policy.
	policy console.PolicySource
	// mcpServers are the configured MCP servers' names.
	mcpServers []string
	// shadow, when set, is the candidate policy running in shadow.
	shadow *policy.Policy
	// refusedEvents, when set, bounds the console.refused events per
	// client to that many an hour (fixture.refusals).
	refusedEvents int
	// auditFormat is the audit file's format; empty is canonical.
	auditFormat siem.Format
	// metrics, when set, receives the console's observations.
	metrics *metrics.Metrics
}

// failingList is a desk whose List returns fail with its requests.
type failingList struct {
	*approval.Desk
	fail error
}

func (f failingList) List(ctx context.Context, filter approval.Filter) ([]approval.Request, error) {
	rs, _ := f.Desk.List(ctx, filter)
	return rs, f.fail
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{index: capindex.NewMemory(time.Now), rawApprovals: approval.NewMemory(time.Now), logs: &syncBuffer{}}
	sealed, err := approval.Sealed(f.rawApprovals, []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	f.approvals = approval.NewDesk(sealed, approval.Options{})
	f.pending = f.seedApproval(t, "user:carol@example.com")
	f.revs = fo.revocations
	if f.revs == nil {
		f.revs = revocation.NewMemory(revocation.MemoryOptions{})
		t.Cleanup(func() { f.revs.Close() })
	}
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	f.verifier, err = captoken.NewVerifier(ks, captoken.VerifierConfig{Issuer: "https://gw.test",
		Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Leeway: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f.keys = ks
	f.chain = seedChain(t, ks, f.index)
	f.listed = &capindextest.Unreadable{Index: f.index}
	au, err := authn.New(ctx, fo.issuers, []authn.DevKey{
		{Hash: authn.HashKey(adminKey), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
		{Hash: authn.HashKey(approverKey), Principal: "user:sec@example.com", Groups: []string{"security"}},
		{Hash: authn.HashKey(aliceKey), Principal: "user:alice@example.com", Groups: []string{"finance"}},
		{Hash: authn.HashKey(auditorKey), Principal: "user:auditor@example.com", Groups: []string{"audit"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	auditLog := f.openAudit(t, fo.auditFormat)
	f.auditLog = auditLog
	pol := staticPolicy{quickstartPolicy(t)}
	logger := slog.New(slog.NewJSONHandler(f.logs, nil))
	access := config.AdminAccess{Groups: []string{"capgate-admins"}}
	api := admin.New(admin.Config{Access: access, MaxTTL: time.Hour}, admin.Deps{
		Authenticator: au, Index: f.listed, Verifier: f.verifier, Revocations: f.revs, Frozen: freeze.New(ctx, freeze.Options{}),
		Policy: pol, Audit: auditLog, Runtime: platform.Runtime{Logger: logger, Now: time.Now}})
	var consolePolicy console.PolicySource = pol
	if fo.policy != nil {
		consolePolicy = fo.policy
	}
	var approvals console.Approvals = f.approvals
	if fo.listFails != nil {
		approvals = failingList{f.approvals, fo.listFails}
	}
	var shadow console.PolicySource
	if fo.shadow != nil {
		shadow = staticPolicy{fo.shadow}
	}
	if fo.refusedEvents > 0 {
		f.refusals = throttle.New(throttle.Options{Audit: auditLog, Events: fo.refusedEvents, Window: time.Hour})
	}
	c, err := console.New(console.Config{Access: access, Approvers: fo.approvers,
		DevLogin: true, OIDC: fo.oidc, AuditFile: f.auditFile, SessionKey: fo.sessionKey, MCPServers: fo.mcpServers}, console.Deps{
		Authenticator: au, Index: f.listed, Verifier: f.verifier, Revocations: f.revs, Revoker: api, Freezer: api,
		Policy: consolePolicy, Shadow: shadow, Approvals: approvals, Audit: auditLog, Refusals: f.refusals,
		Runtime: platform.Runtime{Logger: logger, Now: time.Now, Metrics: fo.metrics}})
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
		packed, err := captoken.Pack(tok)
		if err != nil {
			t.Fatal(err)
		}
		rec := capindex.Record{CapabilityID: c.CapabilityID, Token: packed, Principal: c.Principal, Holder: holder,
			Agent: c.Audience, Grant: c.Grant, ParentID: c.ParentCapabilityID,
			DisplayNames: []string{"Q1 report"}, IssuedAt: c.IssuedAt.Time(), Expires: c.Expiry.Time()}
		if err := ix.Put(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		out, parent = append(out, rec), &c
	}
	return out
}

// openAudit starts an audit file in format with a few events and returns
// its logger.
func (f *fixture) openAudit(t *testing.T, format siem.Format) *slog.Logger {
	t.Helper()
	f.auditFile = filepath.Join(t.TempDir(), "audit.jsonl")
	log, closeAudit, err := audit.Open(audit.OpenOptions{File: f.auditFile, Chain: "replica-1", Format: format, Version: "v-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeAudit() })
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

// seedApproval records carol's HR write, waiting for group security, in
// the fixture's approval store (a real Desk on the memory backend).
func (f *fixture) seedApproval(t *testing.T, principal string) string {
	t.Helper()
	r, err := f.approvals.Create(context.Background(), approval.Request{
		Principal: principal, Agent: "documents", Purpose: "fix the parental leave section",
		PolicyRevision: "sha256:1f2e3d", Wait: time.Hour,
		Grants: []approval.Grant{{Grant: "documents:write", Rule: "hr-editors-write-needs-approval",
			Operations: []string{"update"}, TTL: 15 * time.Minute,
			Resources: []policy.Resource{{ID: secretResource, DisplayName: "HR handbook", Collection: "hr"}},
			Approvers: &policy.Approvers{Groups: []string{"security"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// decision says how request id stands: "pending", or "approved by X: reason".
func (f *fixture) decision(t *testing.T, id string) string {
	t.Helper()
	r, err := f.approvals.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == approval.StatusPending {
		return "pending"
	}
	return string(r.Status) + " by " + r.DecidedBy + ": " + r.Reason
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
