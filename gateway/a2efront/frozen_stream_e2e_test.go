package a2efront_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/freeze"
)

// TestFrozenEndsOpenStream: a session's stream opened before its host or
// principal is frozen ends at the host's next event. A tool call in
// flight when the operator freezes answers after it: the caller gets
// capability_missing, saying what is frozen, in place of the answer, and
// the stream closes. After the unfreeze a new session runs.
func TestFrozenEndsOpenStream(t *testing.T) {
	for _, tt := range []struct {
		kind freeze.Kind
		name string
	}{{freeze.Agent, "lab"}, {freeze.Principal, "user:alice@example.com"}} {
		t.Run(string(tt.kind), func(t *testing.T) {
			ctx := context.Background()
			set := freeze.New(ctx, freeze.Options{})
			started, release := make(chan struct{}, 1), make(chan struct{}, 1)
			slow := lab.NewToolPlugin(lab.PluginInfo{Name: "slow-tools", Priority: 1}, map[string]lab.Tool{
				"echo": {Description: "Echo once released.", Run: func(ctx context.Context, args map[string]any) (any, error) {
					started <- struct{}{}
					select {
					case <-release:
					case <-ctx.Done():
					}
					return map[string]any{"text": args["text"]}, nil
				}},
			})
			w := newWorld(t, worldOptions{frozen: set, lab: lab.Options{Plugins: []lab.Plugin{slow}}})
			c := w.open(t)
			handshake(t, c, aliceKey, "tools")
			send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "after the freeze"}}, http.StatusAccepted)
			<-started
			if _, err := set.Freeze(ctx, tt.kind, tt.name, "user:admin@example.com", "incident 7"); err != nil {
				t.Fatal(err)
			}
			release <- struct{}{}
			m := next(t, c)
			e, ok := m.Body.(*a2e.Error)
			if !ok || e.Code != a2e.CodeCapabilityMissing || e.Message != "the "+string(tt.kind)+" "+tt.name+" is frozen by an operator" {
				t.Fatalf("got %s, want the frozen refusal in place of the host's answer", m.Raw)
			}
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if m, err := c.Next(sctx); !errors.Is(err, lab.ErrStreamClosed) {
				t.Fatalf("the stream went on after the refusal: %s, %v", m.Raw, err)
			}
			if got := w.audit.events("a2e.refusal"); len(got) == 0 || got[len(got)-1]["code"] != a2e.CodeCapabilityMissing {
				t.Errorf("the stream's end was not audited: %v", got)
			}
			if _, err := set.Unfreeze(ctx, tt.kind, tt.name, "user:admin@example.com", "resolved"); err != nil {
				t.Fatal(err)
			}
			fresh := w.open(t)
			handshake(t, fresh, aliceKey, "tools")
			send(t, fresh, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}}, http.StatusAccepted)
			<-started
			release <- struct{}{}
			if _, ok := next(t, fresh).Body.(*a2e.ToolCallResp); !ok {
				t.Fatal("a new session was not answered after the unfreeze")
			}
		})
	}
}
