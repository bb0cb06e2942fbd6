package a2afront

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// FuzzGatedSend sends arbitrary text and metadata, with a valid
// capability, to a gated agent that echoes everything it is told and
// every storage id it knows. Whatever the caller sends, the agent never
// receives the capability's token or id, and the caller never receives a
// storage id.
func FuzzGatedSend(f *testing.F) {
	f.Add("read %h", `{"skill":"notes.read"}`)
	f.Add("notes/team-standup", `{}`)
	f.Add("rh_%h%h", `{"skill":"notes.write","capabilityToken":"x"}`)
	f.Add(`\u0022 %h`, `{"capabilityId":"cap_other"}`)
	fx := newGatedFixture(f)
	capb, h := notesCapability(f, fx, aliceKey, `["notes:read"]`)
	handle := h["Team standup"]
	f.Fuzz(func(t *testing.T, text, ext string) {
		text = strings.ReplaceAll(text, "%h", handle)
		var extObj map[string]json.RawMessage
		if json.Unmarshal([]byte(ext), &extObj) != nil || extObj == nil {
			return
		}
		if _, ok := extObj["capabilityId"]; !ok {
			extObj["capabilityId"], _ = json.Marshal(capb.ID)
		}
		params, _ := json.Marshal(map[string]any{"message": map[string]any{
			"kind": "message", "messageId": "m1", "role": "user",
			"parts":    []map[string]any{{"kind": "text", "text": text}},
			"metadata": map[string]any{agentcard.ExtensionURI: extObj},
		}})
		before := len(fx.upstream.calls(""))
		_, body := fx.post(t, aliceKey, "notes", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":`+string(params)+`}`, nil)
		for _, id := range []string{"notes/team-standup", "notes/team-retro", "notes/alice-diary"} {
			if strings.Contains(body, id) {
				t.Fatalf("the caller saw %s: %s", id, body)
			}
		}
		for _, r := range fx.upstream.calls("")[before:] {
			if strings.Contains(string(r.body), capb.Token) || strings.Contains(string(r.body), capb.ID) {
				t.Fatalf("the capability reached the agent: %s", r.body)
			}
		}
	})
}
