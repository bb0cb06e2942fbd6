package policy_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
)

const approvalHead = `version: 1
rules:
  - id: staff-write
    principals: {groups: [staff]}
    agents: [documents]
    grants: [documents:read, documents:write]
`

func TestApprovalSectionProblems(t *testing.T) {
	tests := []struct {
		name, section, wantPos string
		wantErr                error
	}{
		{"no approvers", "    approval: {wait: 1h}\n", "7:15", policy.ErrMissingField},
		{"empty approvers", "    approval: {approvers: {}}\n", "7:27", policy.ErrMissingField},
		{"wildcard group", "    approval: {approvers: {groups: [\"*\"]}}\n", "7:37", policy.ErrBadMatcher},
		{"bad wait", "    approval: {approvers: {groups: [sec]}, wait: soon}\n", "7:50", policy.ErrBadWait},
		{"wait too long", "    approval: {approvers: {groups: [sec]}, wait: 900h}\n", "7:50", policy.ErrBadWait},
		{"bad condition", "    approval: {approvers: {groups: [sec]}, when: [\"request.ttl > 1\"]}\n", "7:51", policy.ErrBadCondition},
		{"unknown field", "    approval: {approvers: {groups: [sec]}, whom: [x]}\n", "7:44", policy.ErrUnknownField},
		{"on a deny rule", "    effect: deny\n    approval: {approvers: {groups: [sec]}}\n", "8:15", policy.ErrInvalidRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := policy.Load(context.Background(), []byte(approvalHead+tt.section), "p.yaml", testCatalog())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), "p.yaml:"+tt.wantPos) {
				t.Errorf("error %q does not point at %s", err, tt.wantPos)
			}
		})
	}
}

func TestApprovalWhen(t *testing.T) {
	src := approvalHead + `    max_ttl: 2h
    max_delegation_depth: 1
    approval:
      approvers: {groups: [security], ids: [user:root@example.com]}
      wait: 30m
      when:
        - request.grant == "documents:write"
        - request.ttl > duration("30m") || request.depth > 0 || request.purpose.contains("urgent")
`
	p, _, err := policy.Load(context.Background(), []byte(src), "p.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	staff := policy.Principal{ID: "user:s@example.com", Groups: []string{"staff"}}
	in := policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read", "documents:write"}, Now: noon}
	tests := []struct {
		name    string
		expires time.Duration
		purpose string
		want    bool
	}{
		{"long write needs approval", 0, "", true},
		{"short write with depth 1 still needs it", 10 * time.Minute, "", true},
	}
	for _, tt := range tests {
		in.Purpose = tt.purpose
		in.Expires = time.Time{}
		if tt.expires > 0 {
			in.Expires = noon.Add(tt.expires)
		}
		d := p.Decide(context.Background(), in)
		if !d.Allow || d.NeedsApproval() != tt.want {
			t.Errorf("%s: allow %t needs approval %t, want %t: %+v", tt.name, d.Allow, d.NeedsApproval(), tt.want, d.Reasons)
		}
		for _, g := range d.Grants {
			if (g.Approval != nil) != (g.Grant == "documents:write") {
				t.Errorf("%s: grant %s approval %+v", tt.name, g.Grant, g.Approval)
			}
			if g.Approval != nil && (g.Approval.Wait != 30*time.Minute || !g.Approval.Approvers.Admits(policy.Principal{ID: "user:root@example.com"})) {
				t.Errorf("%s: approval %+v", tt.name, g.Approval)
			}
		}
	}
}

func TestApprovalWhenFalse(t *testing.T) {
	src := approvalHead + `    approval:
      approvers: {groups: [security]}
      when: [request.ttl > duration("30m")]
`
	p, _, err := policy.Load(context.Background(), []byte(src), "p.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	in := policy.Input{Principal: policy.Principal{ID: "u", Groups: []string{"staff"}}, Agent: "documents",
		Grants: []string{"documents:read", "documents:write"}, Now: noon}
	if d := p.Decide(context.Background(), in); !d.Allow || d.NeedsApproval() {
		t.Fatalf("15m ttl should need no approval: %+v", d)
	}
	if text := p.Explain(context.Background(), in); !strings.Contains(text, "no approval needed") {
		t.Errorf("explain does not say why no approval is needed:\n%s", text)
	}
}

func TestApproversAdmit(t *testing.T) {
	a := policy.Approvers{IDs: []string{"user:x"}, Groups: []string{"security"}}
	for _, tt := range []struct {
		p    policy.Principal
		want bool
	}{
		{policy.Principal{ID: "user:x"}, true},
		{policy.Principal{ID: "user:y", Groups: []string{"staff", "security"}}, true},
		{policy.Principal{ID: "user:y", Groups: []string{"staff"}}, false},
		{policy.Principal{}, false},
	} {
		if got := a.Admits(tt.p); got != tt.want {
			t.Errorf("Admits(%+v) = %t", tt.p, got)
		}
	}
	if s := a.String(); s != "group security, user:x" {
		t.Errorf("String = %q", s)
	}
}

// TestPolicyApprovers: the union of every approval section's approvers,
// each once; a policy without approval sections names nobody.
func TestPolicyApprovers(t *testing.T) {
	src := approvalHead + `    approval: {approvers: {groups: [security, legal], ids: [user:root@example.com]}}
  - id: staff-admin
    principals: {groups: [staff]}
    agents: [documents]
    grants: [documents:admin]
    operations: [read]
    approval: {approvers: {groups: [security, cab], ids: [user:cto@example.com]}}
  - id: staff-read
    principals: {groups: [staff]}
    agents: [documents]
    grants: [documents:read]
`
	p, _, err := policy.Load(context.Background(), []byte(src), "p.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	got := p.Approvers()
	if !slices.Equal(got.Groups, []string{"security", "legal", "cab"}) || !slices.Equal(got.IDs, []string{"user:root@example.com", "user:cto@example.com"}) {
		t.Fatalf("Approvers() = %+v", got)
	}
	if !got.Admits(policy.Principal{ID: "user:x", Groups: []string{"cab"}}) {
		t.Error("a member of cab is not admitted")
	}
	none, _, err := policy.Load(context.Background(), []byte("version: 1\nrules: []\n"), "p.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	if a := none.Approvers(); len(a.IDs)+len(a.Groups) != 0 {
		t.Fatalf("a policy without approval sections names %+v", a)
	}
}
