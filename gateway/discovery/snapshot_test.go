package discovery_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/discovery"
)

// TestSnapshotGolden pins the quickstart snapshots of the documents agent.
func TestSnapshotGolden(t *testing.T) {
	p := quickstartPolicy(t)
	for _, who := range []string{"alice", "bob", "carol", "summarizer"} {
		t.Run(who, func(t *testing.T) {
			golden(t, who+".golden", snapshotJSON(t, quickstartInput(t, who, p)))
		})
	}
}

// TestSnapshotQuickstart states what the goldens must show, so that an
// -update cannot quietly accept a wrong snapshot.
func TestSnapshotQuickstart(t *testing.T) {
	p := quickstartPolicy(t)
	tests := []struct {
		who        string
		tools      []string
		grants     []string
		delegation bool
	}{
		{"alice", []string{"list_documents", "retrieve_document", "search_documents"}, []string{"documents:read"}, true},
		{"bob", []string{"list_documents", "retrieve_document"}, []string{"documents:read"}, false},
		{"carol", []string{"delete_document", "list_documents", "retrieve_document", "search_documents", "update_document"},
			[]string{"documents:read", "documents:write"}, false},
		{"summarizer", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.who, func(t *testing.T) {
			snap, err := discovery.Snapshot(context.Background(), quickstartInput(t, tt.who, p))
			if err != nil {
				t.Fatal(err)
			}
			if got := toolNames(snap); !slices.Equal(got, tt.tools) {
				t.Errorf("tools = %v, want %v", got, tt.tools)
			}
			if *snap.Tools.Supported != (len(tt.tools) > 0) {
				t.Errorf("tools.supported = %v", *snap.Tools.Supported)
			}
			var ids []string
			for _, g := range grantsOf(t, snap) {
				ids = append(ids, g.ID)
			}
			if !slices.Equal(ids, tt.grants) {
				t.Errorf("grants = %v, want %v", ids, tt.grants)
			}
			if *snap.MultiAgent.Delegation != tt.delegation {
				t.Errorf("delegation = %v, want %v", *snap.MultiAgent.Delegation, tt.delegation)
			}
		})
	}
}

// TestSnapshotAliceCaps checks alice's caps against the quickstart policy:
// reports only, retrieve/search/list, one hour, depth 2.
func TestSnapshotAliceCaps(t *testing.T) {
	snap, err := discovery.Snapshot(context.Background(), quickstartInput(t, "alice", quickstartPolicy(t)))
	if err != nil {
		t.Fatal(err)
	}
	g := grantsOf(t, snap)[0]
	want := discovery.ResourceScope{Collection: "reports"}
	if g.MaxTTLSeconds != 3600 || g.MaxDelegationDepth != 2 || !g.Attenuable ||
		!slices.Equal(g.Operations, []string{"retrieve", "search", "list"}) || g.Resources.Collection != want.Collection ||
		g.Resources.Any || g.Resources.Restricted {
		t.Errorf("alice documents:read = %+v", g)
	}
	if names := snap.MultiAgent.SubAgents; len(names) != 1 || names[0].Name != "summarizer" {
		t.Errorf("subagents = %+v, want the summarizer only (never the agent itself)", names)
	}
}

// TestSnapshotBobNeverSeesHR: the deny rule that keeps contractors away
// from hr must not tell bob that hr exists.
func TestSnapshotBobNeverSeesHR(t *testing.T) {
	data := string(snapshotJSON(t, quickstartInput(t, "bob", quickstartPolicy(t))))
	for _, secret := range []string{`"hr"`, "salaries", "contractors-never-hr", "nobody-gets-admin", "documents:admin", "search_documents", `"search"`} {
		if strings.Contains(data, secret) {
			t.Errorf("bob's snapshot mentions %q:\n%s", secret, data)
		}
	}
	alice := string(snapshotJSON(t, quickstartInput(t, "alice", quickstartPolicy(t))))
	if alice == data {
		t.Error("alice and bob get the same snapshot")
	}
}

// TestSnapshotHidesUpstreamURL: the upstream's own address never shows.
func TestSnapshotHidesUpstreamURL(t *testing.T) {
	in := quickstartInput(t, "alice", quickstartPolicy(t))
	in.Card["url"] = "http://10.1.2.3:9101/internal"
	in.Card["additionalInterfaces"] = []any{map[string]any{"url": "http://10.1.2.3:9999"}}
	if data := string(snapshotJSON(t, in)); strings.Contains(data, "10.1.2.3") {
		t.Errorf("snapshot leaks the upstream url:\n%s", data)
	}
}

// TestSnapshotDeterministic: the same input always gives the same JSON.
func TestSnapshotDeterministic(t *testing.T) {
	in := quickstartInput(t, "carol", quickstartPolicy(t))
	first := snapshotJSON(t, in)
	for range 20 {
		if got := snapshotJSON(t, in); string(got) != string(first) {
			t.Fatalf("snapshot changed between calls:\n%s\n%s", first, got)
		}
	}
}

// TestSnapshotErrors: a snapshot that cannot be computed is an error,
// never a partial or empty snapshot.
func TestSnapshotErrors(t *testing.T) {
	p := quickstartPolicy(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		edit    func(*discovery.Input)
		wantErr error
	}{
		{"no policy", context.Background(), func(in *discovery.Input) { in.Policy = nil }, discovery.ErrNoPolicy},
		{"no clock", context.Background(), func(in *discovery.Input) { in.Now = time.Time{} }, discovery.ErrNoClock},
		{"no agent", context.Background(), func(in *discovery.Input) { in.Agent = "" }, discovery.ErrNoAgent},
		{"cancelled", cancelled, func(*discovery.Input) {}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := quickstartInput(t, "alice", p)
			tt.edit(&in)
			snap, err := discovery.Snapshot(tt.ctx, in)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if snap.Tools != nil || snap.Custom != nil {
				t.Errorf("partial snapshot returned with an error: %+v", snap)
			}
		})
	}
}
