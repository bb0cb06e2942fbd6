package a2afront

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/sep"
)

// notesCapability issues alice (or bob) notes grants on the team notes
// and returns the capability and the handle of each display name.
func notesCapability(t testing.TB, fx *fixture, key, grants string) (sep.Capability, map[string]string) {
	t.Helper()
	caps, e := fx.request(t, key, "notes", grants, `{"collection":"team"}`)
	if e != nil || len(caps) == 0 {
		t.Fatalf("issuance refused: %+v", e)
	}
	handles := map[string]string{}
	for _, h := range caps[0].ResourceHandles {
		handles[h.DisplayName] = h.Handle
	}
	return caps[0], handles
}

// sendBody is a message/send whose text is text and whose message
// metadata carries ext under the extension's URI ("" for none).
func sendBody(method, text, ext string) string {
	md := ""
	if ext != "" {
		md = `,"metadata":{"` + agentcard.ExtensionURI + `":` + ext + `}`
	}
	return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{"message":{"kind":"message","messageId":"m1","role":"user",` +
		`"parts":[{"kind":"text","text":"` + text + `"}]` + md + `}}}`
}

// TestGatedSendRefusals: every refusal of a gated send is answered by the
// gateway with its code, and the agent sees nothing.
func TestGatedSendRefusals(t *testing.T) {
	fx := newGatedFixture(t)
	alice, ah := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	bobs, _ := notesCapability(t, fx, bobKey, `["notes:read"]`)
	revoked, _ := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	if err := fx.revocations.Revoke(context.Background(), revoked.RevocationID, fx.now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	plain, e := fx.request(t, aliceKey, "plain", `["plain:use"]`, "")
	if e != nil {
		t.Fatal(e)
	}
	standup := ah["Team standup"]
	tests := []struct {
		name, key, text, ext string
		header               map[string]string
		want                 int
	}{
		{"no capability", aliceKey, "hi", "", nil, jsonrpc.CodeCapabilityRequired},
		{"unknown id", aliceKey, "hi", `{"capabilityId":"cap_nope"}`, nil, jsonrpc.CodeCapabilityInvalid},
		{"forged token", aliceKey, "hi", "", map[string]string{proxy.HeaderCapabilityToken: "e30.e30.AAAA"}, jsonrpc.CodeCapabilityInvalid},
		{"another holder's id", aliceKey, "hi", `{"capabilityId":"` + bobs.ID + `"}`, nil, jsonrpc.CodeHolderMismatch},
		{"another holder's token", aliceKey, "hi", "", map[string]string{proxy.HeaderCapabilityToken: bobs.Token}, jsonrpc.CodeHolderMismatch},
		{"another agent's capability", aliceKey, "hi", `{"capabilityId":"` + plain[0].ID + `"}`, nil, jsonrpc.CodeCapabilityInvalid},
		{"revoked", aliceKey, "hi", `{"capabilityId":"` + revoked.ID + `"}`, nil, jsonrpc.CodeCapabilityRevoked},
		{"skill out of scope", aliceKey, "hi", `{"capabilityId":"` + alice.ID + `","skill":"notes.write"}`, nil, jsonrpc.CodeOperationNotPermitted},
		{"unknown skill", aliceKey, "hi", `{"capabilityId":"` + alice.ID + `","skill":"notes.burn"}`, nil, jsonrpc.CodeInvalidParams},
		{"skill case variant", aliceKey, "hi", `{"capabilityId":"` + alice.ID + `","Skill":"notes.read"}`, nil, jsonrpc.CodeInvalidParams},
		{"foreign handle", aliceKey, "read rh_AAAAAAAAAAAAAAAAAAAAAA", `{"capabilityId":"` + alice.ID + `"}`, nil, jsonrpc.CodeResourceNotPermitted},
		{"real id of the capability", aliceKey, "read notes/team-standup", `{"capabilityId":"` + alice.ID + `"}`, nil, jsonrpc.CodeResourceNotPermitted},
		{"real id outside it", aliceKey, "read notes/alice-diary please", `{"capabilityId":"` + alice.ID + `"}`, nil, jsonrpc.CodeResourceNotPermitted},
		{"handle of a token sent twice, differently", aliceKey, "read " + standup, `{"capabilityToken":"` + alice.Token + `"}`,
			map[string]string{proxy.HeaderCapabilityToken: bobs.Token}, jsonrpc.CodeCapabilityInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fx.upstream.calls("message/send"))
			_, body := fx.post(t, tt.key, "notes", sendBody("message/send", tt.text, tt.ext), tt.header)
			if got := errorCode(t, body); got != tt.want {
				t.Errorf("code %d, want %d: %s", got, tt.want, body)
			}
			if n := len(fx.upstream.calls("message/send")); n != before {
				t.Errorf("the agent received the refused message")
			}
		})
	}
}

// TestGatedSendAllowed: a capable message reaches the agent scoped to its
// capability (trusted headers, handles rewritten, no capability data in
// the body), and no id the agent echoes reaches the caller.
func TestGatedSendAllowed(t *testing.T) {
	tests := []struct {
		name, ext string
		header    map[string]string
	}{
		{"id in message metadata", `{"capabilityId":"%s","skill":"notes.read"}`, nil},
		{"token in the header", "", map[string]string{proxy.HeaderCapabilityToken: "%t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newGatedFixture(t)
			capb, h := notesCapability(t, fx, aliceKey, `["notes:read"]`)
			ext := strings.ReplaceAll(tt.ext, "%s", capb.ID)
			header := map[string]string{}
			for k, v := range tt.header {
				header[k] = strings.ReplaceAll(v, "%t", capb.Token)
			}
			_, body := fx.post(t, aliceKey, "notes", sendBody("message/send", "read "+h["Team standup"]+".", ext), header)
			if code := errorCode(t, body); code != 0 {
				t.Fatalf("refused: %s", body)
			}
			got := fx.upstream.calls("message/send")
			if len(got) != 1 {
				t.Fatalf("the agent received %d sends", len(got))
			}
			up := string(got[0].body)
			if !strings.Contains(up, "read notes/team-standup.") || strings.Contains(up, capb.ID) || strings.Contains(up, "rh_") {
				t.Errorf("forwarded message: %s", up)
			}
			if id := got[0].header.Get(proxy.HeaderCapabilityID); id != capb.ID {
				t.Errorf("A2A-Capability-Id %q, want %q", id, capb.ID)
			}
			if tok := got[0].header.Get(proxy.HeaderCapabilityToken); tok != "" {
				t.Errorf("the token reached the agent in a header")
			}
			assertNoRealIDs(t, body)
			for _, want := range []string{h["Team standup"], h["Team retro"], "[resource] is private", "you said: read " + h["Team standup"] + "."} {
				if !strings.Contains(body, want) {
					t.Errorf("answer lacks %q: %s", want, body)
				}
			}
		})
	}
}

// assertNoRealIDs fails when body names any storage id of the notes.
func assertNoRealIDs(t *testing.T, body string) {
	t.Helper()
	for _, id := range []string{"notes/team-standup", `notes\/team-standup`, "notes/team-retro", "notes/alice-diary"} {
		if strings.Contains(body, id) {
			t.Errorf("the caller saw the real id %s: %s", id, body)
		}
	}
}
