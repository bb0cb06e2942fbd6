package discovery_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/discovery"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// quickstartVariant loads the quickstart policy with one edit applied.
func quickstartVariant(t *testing.T, old, replacement string) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile(quickstartDir + "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("quickstart policy has no %q", old)
	}
	return loadPolicy(t, []byte(strings.Replace(string(data), old, replacement, 1)))
}

// TestSnapshotFollowsPolicy: the snapshot is computed from the policy of
// each call, so a reloaded policy shows on the next call.
func TestSnapshotFollowsPolicy(t *testing.T) {
	before := quickstartPolicy(t)
	tests := []struct {
		name, who, old, replacement string
		check                       func(t *testing.T, s discovery.AgentCapabilities)
	}{
		{"contractors may search", "bob", "operations: [retrieve, list]", "operations: [retrieve, search, list]",
			func(t *testing.T, s discovery.AgentCapabilities) {
				if !slices.Contains(toolNames(s), "search_documents") {
					t.Errorf("tools = %v, want search_documents", toolNames(s))
				}
			}},
		{"finance may no longer delegate", "alice", "max_delegation_depth: 2", "max_delegation_depth: 0",
			func(t *testing.T, s discovery.AgentCapabilities) {
				if *s.MultiAgent.Delegation || s.MultiAgent.SubAgents != nil {
					t.Errorf("multiAgent = %+v, want no delegation", s.MultiAgent)
				}
			}},
		{"finance loses everything", "alice", "principals: {groups: [finance]}\n    agents: [documents]",
			"principals: {groups: [auditors]}\n    agents: [documents]",
			func(t *testing.T, s discovery.AgentCapabilities) {
				if len(toolNames(s)) != 0 || *s.Tools.Supported || len(grantsOf(t, s)) != 0 {
					t.Errorf("tools = %v, grants = %v, want none", toolNames(s), grantsOf(t, s))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := quickstartInput(t, tt.who, before)
			old := string(snapshotJSON(t, in))
			in.Policy = quickstartVariant(t, tt.old, tt.replacement)
			snap, err := discovery.Snapshot(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, snap)
			if snap.Custom[discovery.CustomPolicyRevision] == before.Revision() {
				t.Error("policy revision did not change")
			}
			if string(snapshotJSON(t, in)) == old {
				t.Error("snapshot did not change")
			}
		})
	}
}

// TestSnapshotNeverWiderThanIssuance: everything a snapshot lists can be
// issued by a real request, and no operation it leaves out can be issued
// by any request for any collection.
func TestSnapshotNeverWiderThanIssuance(t *testing.T) {
	p := quickstartPolicy(t)
	queries := []*policy.ResourceQuery{nil, {Collection: "reports"}, {Collection: "hr"}, {Collection: "other"},
		{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}}}
	for _, who := range []string{"alice", "bob", "carol", "summarizer"} {
		in := quickstartInput(t, who, p)
		snap, err := discovery.Snapshot(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, g := range grantsOf(t, snap) {
			d := p.Decide(context.Background(), policy.Input{Principal: in.Principal, Agent: "documents",
				Grants: append([]string{g.ID}, g.Requires...), Resource: &policy.ResourceQuery{Collection: g.Resources.Collection},
				Purpose: "test", Now: now})
			i := slices.IndexFunc(d.Grants, func(gd policy.GrantDecision) bool { return gd.Grant == g.ID })
			if i < 0 || !slices.Equal(d.Grants[i].Operations, g.Operations) {
				t.Errorf("%s: listed %s %v cannot be issued: %+v", who, g.ID, g.Operations, d)
			}
			for _, op := range g.Operations {
				listed[op] = true
			}
		}
		for skill, op := range in.Skills {
			if listed[op] != slices.Contains(toolNames(snap), skill) {
				t.Errorf("%s: tool %s listed = %v, operation %s issuable = %v", who, skill, !listed[op], op, listed[op])
			}
		}
		for _, q := range queries {
			for _, grants := range [][]string{{"documents:read"}, {"documents:write", "documents:read"}, {"documents:admin"}} {
				d := p.Decide(context.Background(), policy.Input{Principal: in.Principal, Agent: "documents",
					Grants: grants, Resource: q, Purpose: "test", Now: now})
				for _, gd := range d.Grants {
					for _, op := range gd.Operations {
						if !listed[op] {
							t.Errorf("%s: %s %s is issuable for %+v but not in the snapshot", who, gd.Grant, op, q)
						}
					}
				}
			}
		}
	}
}

// TestSnapshotProbesCollections: with first-match semantics, a rule that
// only a collection query reaches is found when the collection is probed.
func TestSnapshotProbesCollections(t *testing.T) {
	p := loadPolicy(t, []byte(`version: 1
rules:
  - id: finance-list-reports
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    operations: [list]
    resources: {collection: reports}
  - id: finance-read-archive
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    operations: [retrieve, list]
    resources: {collection: archive}
    max_ttl: 5m
`))
	in := quickstartInput(t, "alice", p)
	in.Collections = nil
	snap, err := discovery.Snapshot(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(snap); !slices.Equal(got, []string{"list_documents"}) {
		t.Errorf("without probes: tools = %v", got)
	}
	in.Collections = []string{"archive", "reports", "", "archive"}
	snap, err = discovery.Snapshot(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(snap); !slices.Equal(got, []string{"list_documents", "retrieve_document"}) {
		t.Errorf("with probes: tools = %v", got)
	}
	grants := grantsOf(t, snap)
	if len(grants) != 2 || grants[0].Resources.Collection != "reports" || grants[1].Resources.Collection != "archive" ||
		grants[1].MaxTTLSeconds != 300 {
		t.Errorf("grants = %+v, want reports (list) then archive (retrieve, list; 5m)", grants)
	}
}

// TestSnapshotExclusions: a deny rule's resources are never named; the
// scope only says it is restricted, and only when the exclusion overlaps.
func TestSnapshotExclusions(t *testing.T) {
	p := loadPolicy(t, []byte(`version: 1
rules:
  - id: no-secret-board-minutes
    effect: deny
    principals: {any: true}
    agents: [documents]
    grants: ["*"]
    resources: {collection: board-minutes}
  - id: no-q4
    effect: deny
    principals: {any: true}
    agents: [documents]
    grants: ["*"]
    resources: {filter: {quarter: [2025-Q4]}}
  - id: finance-anything
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
  - id: contractors-q1
    principals: {groups: [contractors]}
    agents: [documents]
    grants: [documents:read]
    resources: {collection: reports, filter: {quarter: [2025-Q1]}}
`))
	tests := []struct {
		who  string
		want discovery.ResourceScope
	}{
		{"alice", discovery.ResourceScope{Any: true, Restricted: true}},
		{"bob", discovery.ResourceScope{Collection: "reports", Filter: map[string][]string{"quarter": {"2025-Q1"}}}},
	}
	for _, tt := range tests {
		in := quickstartInput(t, tt.who, p)
		data := string(snapshotJSON(t, in))
		for _, secret := range []string{"board-minutes", "2025-Q4", "no-q4"} {
			if strings.Contains(data, secret) {
				t.Errorf("%s's snapshot names %q", tt.who, secret)
			}
		}
		snap, _ := discovery.Snapshot(context.Background(), in)
		got := grantsOf(t, snap)[0].Resources
		if got.Any != tt.want.Any || got.Restricted != tt.want.Restricted || got.Collection != tt.want.Collection ||
			!slices.Equal(got.Filter["quarter"], tt.want.Filter["quarter"]) {
			t.Errorf("%s: resources = %+v, want %+v", tt.who, got, tt.want)
		}
	}
}

// TestSnapshotPurposeAndConditions: a rule that needs a stated purpose
// counts (a caller can state one); a rule whose condition fails does not.
func TestSnapshotPurposeAndConditions(t *testing.T) {
	p := loadPolicy(t, []byte(`version: 1
rules:
  - id: finance-with-purpose
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    operations: [search]
    require_purpose: true
  - id: carol-only-if-claim
    principals: {groups: [hr]}
    agents: [documents]
    grants: [documents:read]
    conditions: ['has(principal.claims.clearance) && principal.claims.clearance == "high"']
`))
	alice, _ := discovery.Snapshot(context.Background(), quickstartInput(t, "alice", p))
	if got := toolNames(alice); !slices.Equal(got, []string{"search_documents"}) {
		t.Errorf("alice: tools = %v", got)
	}
	in := quickstartInput(t, "carol", p)
	carol, _ := discovery.Snapshot(context.Background(), in)
	if got := toolNames(carol); len(got) != 0 {
		t.Errorf("carol without clearance: tools = %v", got)
	}
	in.Principal.Claims = map[string]any{"clearance": "high"}
	carol, _ = discovery.Snapshot(context.Background(), in)
	if got := toolNames(carol); len(got) != 3 {
		t.Errorf("carol with clearance: tools = %v", got)
	}
}

// TestSnapshotAmbient: on a legacy agent, skills an ambient rule allows are
// tools too, and listed as ambient.
func TestSnapshotAmbient(t *testing.T) {
	cat := policytest.QuickstartCatalog()
	cat.Agents["ledger"] = policy.AgentCatalog{Legacy: true,
		Grants: map[string]policy.Grant{"ledger:read": {ID: "ledger:read", Operations: []string{"read"}}},
		Skills: map[string]string{"read_ledger": "read", "export_ledger": "export"}}
	p := loadPolicy(t, []byte(`version: 1
ambient:
  - id: finance-reads-ledger
    principals: {groups: [finance]}
    agents: [ledger]
    skills: [read_ledger]
`), cat)
	in := discovery.Input{Agent: "ledger", Policy: p, Now: now,
		Principal: policytest.QuickstartPrincipals()["alice"],
		Grants:    []policy.Grant{{ID: "ledger:read", Operations: []string{"read"}}},
		Skills:    map[string]string{"read_ledger": "read", "export_ledger": "export"}}
	snap, err := discovery.Snapshot(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(snap); !slices.Equal(got, []string{"read_ledger"}) {
		t.Errorf("tools = %v", got)
	}
	if got := snap.Custom[discovery.CustomAmbientSkills]; !slices.Equal(got.([]string), []string{"read_ledger"}) {
		t.Errorf("ambientSkills = %v", got)
	}
	if snap.Identity.Name != "ledger" || snap.Transport != nil || snap.Output != nil || snap.Execution != nil {
		t.Errorf("without a card, card facts must be absent: %+v", snap)
	}
	in.Principal = policytest.QuickstartPrincipals()["bob"]
	snap, _ = discovery.Snapshot(context.Background(), in)
	if _, ok := snap.Custom[discovery.CustomAmbientSkills]; ok || len(toolNames(snap)) != 0 {
		t.Errorf("bob: %+v", snap)
	}
}
