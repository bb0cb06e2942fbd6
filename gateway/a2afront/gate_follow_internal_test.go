package a2afront

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2atasks"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// followBody is a follow-up on task-1 carrying ext in params.metadata
// under the extension's URI ("" for none).
func followBody(method, ext string) string {
	md := ""
	if ext != "" {
		md = `,"metadata":{"` + agentcard.ExtensionURI + `":` + ext + `}`
	}
	return `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{"id":"task-1"` + md + `}}`
}

// TestGatedFollowUps: on a gated agent, a follow-up on a task needs the
// owner's live capability as well; another principal is told the task
// does not exist; a revoked capability stops a follow-up and a
// resubscribe; answers are mapped back to handles.
func TestGatedFollowUps(t *testing.T) {
	fx := newGatedFixture(t)
	alice, h := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	bob, _ := notesCapability(t, fx, bobKey, `["notes:read"]`)
	_, body := fx.post(t, aliceKey, "notes", sendBody("message/send", "read "+h["Team standup"], `{"capabilityId":"`+alice.ID+`"}`), nil)
	if errorCode(t, body) != 0 {
		t.Fatalf("send refused: %s", body)
	}
	withAlice := `{"capabilityId":"` + alice.ID + `"}`
	tests := []struct {
		name, key, method, ext string
		header                 map[string]string
		want                   int
	}{
		{"get without a capability", aliceKey, "tasks/get", "", nil, jsonrpc.CodeCapabilityRequired},
		{"get by another principal", bobKey, "tasks/get", `{"capabilityId":"` + bob.ID + `"}`, nil, a2atasks.CodeTaskNotFound},
		{"get with another's capability", aliceKey, "tasks/get", `{"capabilityId":"` + bob.ID + `"}`, nil, jsonrpc.CodeHolderMismatch},
		{"delegation members on a follow-up", aliceKey, "tasks/get", `{"capabilityId":"` + alice.ID + `","capabilities":["x"]}`, nil, jsonrpc.CodeInvalidParams},
		{"cancel without a capability", aliceKey, "tasks/cancel", "", nil, jsonrpc.CodeCapabilityRequired},
		{"resubscribe without a capability", aliceKey, "tasks/resubscribe", "", nil, jsonrpc.CodeCapabilityRequired},
		{"get with the capability", aliceKey, "tasks/get", withAlice, nil, 0},
		{"get with the token in the header", aliceKey, "tasks/get", "", map[string]string{proxy.HeaderCapabilityToken: alice.Token}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fx.upstream.calls(tt.method))
			_, body := fx.post(t, tt.key, "notes", followBody(tt.method, tt.ext), tt.header)
			if got := errorCode(t, body); got != tt.want {
				t.Fatalf("code %d, want %d: %s", got, tt.want, body)
			}
			calls := fx.upstream.calls(tt.method)
			if tt.want != 0 {
				if len(calls) != before {
					t.Errorf("the agent received the refused call")
				}
				return
			}
			up := string(calls[len(calls)-1].body)
			if strings.Contains(up, alice.ID) || strings.Contains(up, alice.Token) || strings.Contains(up, agentcard.ExtensionURI) {
				t.Errorf("the capability reached the agent: %s", up)
			}
			assertNoRealIDs(t, body)
		})
	}
	if err := fx.revocations.Revoke(context.Background(), alice.RevocationID, fx.now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"tasks/resubscribe", "tasks/get"} {
		before := len(fx.upstream.calls(method))
		if _, body := fx.post(t, aliceKey, "notes", followBody(method, withAlice), nil); errorCode(t, body) != jsonrpc.CodeCapabilityRevoked {
			t.Errorf("%s after revocation: %s", method, body)
		}
		if len(fx.upstream.calls(method)) != before {
			t.Errorf("%s after revocation reached the agent", method)
		}
	}
	_, body = fx.post(t, aliceKey, "notes", sendBody("message/send", "more", withAlice), nil)
	if errorCode(t, body) != jsonrpc.CodeCapabilityRevoked {
		t.Errorf("follow-up message after revocation: %s", body)
	}
}

// TestGatedStream: every event of a stream is mapped back to handles.
func TestGatedStream(t *testing.T) {
	fx := newGatedFixture(t)
	alice, h := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	_, body := fx.post(t, aliceKey, "notes", sendBody("message/stream", "read "+h["Team retro"], `{"capabilityId":"`+alice.ID+`"}`), nil)
	if n := strings.Count(body, "data: "); n != 2 {
		t.Fatalf("%d events, want 2: %s", n, body)
	}
	assertNoRealIDs(t, body)
	if !strings.Contains(body, "id: "+h["Team standup"]+"/1") {
		t.Errorf("the event id was not mapped to the handle: %s", body)
	}
	if !strings.Contains(body, h["Team standup"]) || !strings.Contains(body, "you said: read "+h["Team retro"]) {
		t.Errorf("events not mapped to handles: %s", body)
	}
}
