package a2efront_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/freeze"
)

// TestFrozen: once an operator freezes the host or the session's
// principal, every message of a live session is refused and none reaches
// the host; a new handshake is rejected before it reaches the host; an
// unfreeze lets the session go on.
func TestFrozen(t *testing.T) {
	for _, tt := range []struct {
		kind freeze.Kind
		name string
	}{{freeze.Agent, "lab"}, {freeze.Principal, "user:alice@example.com"}} {
		t.Run(string(tt.kind), func(t *testing.T) {
			ctx := context.Background()
			set := freeze.New(ctx, freeze.Options{})
			w := newWorld(t, worldOptions{frozen: set})
			c := w.open(t)
			handshake(t, c, aliceKey, "tools")
			if _, err := set.Freeze(ctx, tt.kind, tt.name, "user:admin@example.com", "incident 7"); err != nil {
				t.Fatal(err)
			}
			before := len(w.lab.Recorder().Types())
			id := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}}, http.StatusAccepted)
			expectError(t, c, id, a2e.CodeCapabilityMissing)
			fresh := w.open(t)
			if resp, _ := handshake(t, fresh, aliceKey, "tools"); resp.OK {
				t.Fatal("a handshake was accepted while frozen")
			}
			if got := w.lab.Recorder().Types(); len(got) != before {
				t.Fatalf("the host received %v while frozen", got[before:])
			}
			if _, err := set.Unfreeze(ctx, tt.kind, tt.name, "user:admin@example.com", "resolved"); err != nil {
				t.Fatal(err)
			}
			send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}}, http.StatusAccepted)
			if _, ok := next(t, c).Body.(*a2e.ToolCallResp); !ok {
				t.Fatal("the session was not answered after the unfreeze")
			}
		})
	}
}
