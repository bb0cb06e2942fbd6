package admin_test

import (
	"context"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// TestUnfreezeAgentKeepsItsPrincipalsOwnFreeze: the principal an agent
// calls out as is frozen with the agent and unfrozen with it, but a
// freeze of that principal made on its own (before or after), or needed
// by another frozen agent calling out as it, outlives unfreezing the
// agent.
func TestUnfreezeAgentKeepsItsPrincipalsOwnFreeze(t *testing.T) {
	tests := []struct {
		name       string
		ownFreeze  bool
		twinFrozen bool // the other agent calling out as the same principal is frozen too
		wantFrozen bool
	}{
		{"frozen with the agent only", false, false, false},
		{"also frozen on its own", true, false, true},
		{"another frozen agent calls out as it", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			rt := platform.Runtime{Now: time.Now}
			frozen := freeze.New(ctx, freeze.Options{Runtime: rt})
			t.Cleanup(func() { frozen.Close() })
			mem := revocation.NewMemory(revocation.MemoryOptions{Now: time.Now})
			t.Cleanup(func() { mem.Close() })
			api := admin.New(admin.Config{MaxTTL: time.Hour, Agents: []string{"summarizer", "summarizer-2"},
				Principals: map[string]string{"summarizer": "agent:summarizer", "summarizer-2": "agent:summarizer"}},
				admin.Deps{Index: capindex.NewMemory(time.Now), Revocations: mem, Frozen: frozen, Runtime: rt})
			if tt.ownFreeze {
				if _, err := api.Freeze(ctx, "user:admin", "principal", "agent:summarizer", "incident 7"); err != nil {
					t.Fatal(err)
				}
			}
			res, err := api.Freeze(ctx, "user:admin", "agent", "summarizer", "incident 9")
			if err != nil || res.AsPrincipal == nil || res.AsPrincipal.Entry.Name != "agent:summarizer" {
				t.Fatalf("freeze: %+v, %v", res, err)
			}
			if tt.twinFrozen { // after: the principal's freeze follows summarizer
				if _, err := api.Freeze(ctx, "user:admin", "agent", "summarizer-2", "incident 10"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := api.Unfreeze(ctx, "user:admin", "agent", "summarizer", "resolved"); err != nil {
				t.Fatal(err)
			}
			e, err := frozen.Check(ctx, "", "agent:summarizer")
			if err != nil {
				t.Fatal(err)
			}
			if got := e != nil; got != tt.wantFrozen {
				t.Errorf("principal frozen after unfreezing the agent: %v, want %v (%+v)", got, tt.wantFrozen, api.Frozen())
			}
			if !tt.twinFrozen {
				return
			}
			// Once the other agent is unfrozen too, nothing holds the
			// principal's freeze any more.
			if _, err := api.Unfreeze(ctx, "user:admin", "agent", "summarizer-2", "resolved"); err != nil {
				t.Fatal(err)
			}
			if e, err := frozen.Check(ctx, "", "agent:summarizer"); err != nil || e != nil {
				t.Errorf("principal still frozen after unfreezing both agents: %+v, %v", e, err)
			}
		})
	}
}
