package a2afront

import (
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestGatedSendSkillPlaces: a send to a gated agent names its skill in any
// of the places an agent may read one; two places that disagree, a skill
// the capability does not cover, an unknown skill or one that is not a
// string are refused, and the agent sees nothing. Places that agree are
// forwarded.
func TestGatedSendSkillPlaces(t *testing.T) {
	fx := newGatedFixture(t)
	reader, _ := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	writer, _ := notesCapability(t, fx, aliceKey, `["notes:write"]`)
	uri := agentcard.ExtensionURI
	tests := []struct {
		name, method, cap, params string
		wantCode                  int // 0: forwarded
		wantDetail                string
		wantMsg                   string // part of the refusal's message
	}{
		{"data part writes, metadata reads", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP","skill":"notes.read"}}}}`,
			jsonrpc.CodeInvalidParams, "conflicting_skills",
			`\"notes.read\" in params.message.metadata[extension] and \"notes.write\" in params.message.parts[0].data`},
		{"data part writes, extension names none", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"case variant in a data part", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"SKILL":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"fold variant in a data part", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"ſkill":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"second data part disagrees", "message/send", writer.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":"notes.write"}},{"kind":"data","data":{"skill":"notes.read"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeInvalidParams, "conflicting_skills", ""},
		{"message metadata disagrees with the extension", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}],"metadata":{"skill":"notes.write","` + uri + `":{"capabilityId":"$CAP","skill":"notes.read"}}}}`,
			jsonrpc.CodeInvalidParams, "conflicting_skills",
			`\"notes.read\" in params.message.metadata[extension] and \"notes.write\" in params.message.metadata`},
		{"request metadata names a skill out of scope", "message/send", reader.ID,
			`{"metadata":{"skill":"notes.write"},"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"part metadata names a skill out of scope", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi","metadata":{"skill":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"unknown skill in a data part", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":"notes.burn"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeInvalidParams, "unknown_skill", ""},
		{"skill not a string", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":["notes.read"]}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeInvalidParams, "", ""},
		{"legacy tasks/send data part", "tasks/send", reader.ID,
			`{"id":"t1","message":{"role":"user","parts":[{"type":"data","data":{"skill":"notes.write"}}]},"capabilityId":"$CAP"}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"v1.0 data part disagrees", "SendMessage", reader.ID,
			`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"skill":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP","skill":"notes.read"}}}}`,
			jsonrpc.CodeInvalidParams, "conflicting_skills", ""},
		{"v1.0 message metadata out of scope", "SendMessage", reader.ID,
			`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"skill":"notes.write","` + uri + `":{"capabilityId":"$CAP"}}}}`,
			jsonrpc.CodeOperationNotPermitted, "", ""},
		{"every place agrees", "message/send", reader.ID,
			`{"metadata":{"skill":"notes.read"},"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":"notes.read"}}],"metadata":{"skill":"notes.read","` + uri + `":{"capabilityId":"$CAP","skill":"notes.read"}}}}`,
			0, "", ""},
		{"data part within a write capability", "message/send", writer.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"skill":"notes.write"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			0, "", ""},
		{"data part naming no skill", "message/send", reader.ID,
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"text":"x"}}],"metadata":{"` + uri + `":{"capabilityId":"$CAP"}}}}`,
			0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fx.upstream.calls(""))
			body := `{"jsonrpc":"2.0","id":7,"method":"` + tt.method + `","params":` + strings.ReplaceAll(tt.params, "$CAP", tt.cap) + `}`
			_, answer := fx.post(t, aliceKey, "notes", body, nil)
			if got := errorCode(t, answer); got != tt.wantCode {
				t.Fatalf("code %d, want %d: %s", got, tt.wantCode, answer)
			}
			if tt.wantMsg != "" && !strings.Contains(answer, tt.wantMsg) {
				t.Errorf("answer lacks %s: %s", tt.wantMsg, answer)
			}
			if tt.wantDetail != "" && !strings.Contains(answer, `"detail":"`+tt.wantDetail+`"`) {
				t.Errorf("answer lacks detail %s: %s", tt.wantDetail, answer)
			}
			forwarded := len(fx.upstream.calls("")) - before
			if tt.wantCode != 0 && forwarded != 0 {
				t.Errorf("the agent received the refused send")
			}
			if tt.wantCode == 0 && forwarded != 1 {
				t.Errorf("the agent received %d calls, want the send", forwarded)
			}
		})
	}
}
