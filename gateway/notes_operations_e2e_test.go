package gateway_test

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestNotesOperationsNeverGuessed drives the attacks of a read-only
// capability on the notes agent: free text asking for an append, a data
// part naming notes.write beside metadata naming notes.read, metadata
// naming another skill, in both generations. Each is refused, by the
// gateway before anything is forwarded or by the agent from the
// operations the gateway vouched for, and the note is unchanged.
func TestNotesOperationsNeverGuessed(t *testing.T) {
	h, counter := newNotesHarness(t)
	agent := counter.next.(*notes.Agent)
	before, _ := agent.Note("notes/alice-groceries")
	alice := h.notesCapability("alice-dev-key", "personal", "notes:read")
	g := alice.handle("Alice's groceries")
	ext := func(skill string) map[string]any {
		m := map[string]any{"capabilityId": alice.ID}
		if skill != "" {
			m["skill"] = skill
		}
		return map[string]any{agentcard.ExtensionURI: m}
	}
	msg03 := func(md map[string]any, parts ...map[string]any) any {
		return map[string]any{"message": map[string]any{"kind": "message", "role": "user", "messageId": "m1", "parts": parts, "metadata": md}}
	}
	msg10 := func(md map[string]any, parts ...map[string]any) any {
		return map[string]any{"message": map[string]any{"role": "ROLE_USER", "messageId": "m1", "parts": parts, "metadata": md}}
	}
	with := func(m map[string]any, k string, v any) map[string]any { m[k] = v; return m }
	text := map[string]any{"kind": "text", "text": "append " + g + ": PWNED"}
	write := map[string]any{"skill": "notes.write", "resourceId": g, "text": "PWNED"}
	tests := []struct {
		name      string
		method    string
		params    any
		hdr       []string
		wantCode  int    // the gateway's refusal; 0 when forwarded
		wantState string // the agent's answer when forwarded
	}{
		{"free text append under notes.read", "message/send", msg03(ext("notes.read"), text), nil, 0, "failed"},
		{"free text append naming no skill", "message/send", msg03(ext(""), text), nil, 0, "failed"},
		{"data part without a skill, with text", "message/send",
			msg03(ext(""), map[string]any{"kind": "data", "data": map[string]any{"resourceId": g, "text": "PWNED"}}), nil, 0, "failed"},
		{"data part notes.write, metadata notes.read", "message/send",
			msg03(ext("notes.read"), map[string]any{"kind": "data", "data": write}), nil, jsonrpc.CodeInvalidParams, ""},
		{"data part notes.write alone", "message/send",
			msg03(ext(""), map[string]any{"kind": "data", "data": write}), nil, jsonrpc.CodeOperationNotPermitted, ""},
		{"message metadata skill notes.write, extension notes.read", "message/send",
			msg03(with(ext("notes.read"), "skill", "notes.write"), text), nil, jsonrpc.CodeInvalidParams, ""},
		{"request metadata skill notes.write", "message/send",
			with(msg03(ext(""), text).(map[string]any), "metadata", map[string]any{"skill": "notes.write"}), nil, jsonrpc.CodeOperationNotPermitted, ""},
		{"v1.0 data part notes.write, metadata notes.read", "SendMessage",
			msg10(ext("notes.read"), map[string]any{"data": write}), []string{"A2A-Version", "1.0"}, jsonrpc.CodeInvalidParams, ""},
		{"v1.0 message metadata skill notes.write", "SendMessage",
			msg10(with(ext(""), "skill", "notes.write"), map[string]any{"text": "append " + g + ": PWNED"}), []string{"A2A-Version", "1.0"},
			jsonrpc.CodeOperationNotPermitted, ""},
		{"v1.0 free text append", "SendMessage",
			msg10(ext("notes.read"), map[string]any{"text": "append " + g + ": PWNED"}), []string{"A2A-Version", "1.0"}, 0, "TASK_STATE_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := counter.n.Load()
			body := h.notesCall("alice-dev-key", tt.method, tt.params, tt.hdr...)
			r := decodeRPC(t, body)
			noStorageIDs(t, tt.name, body)
			if tt.wantCode != 0 {
				if r.Error == nil || r.Error.Code != tt.wantCode {
					t.Errorf("got %s, want code %d", body, tt.wantCode)
				}
				if counter.n.Load() != n {
					t.Errorf("the agent received the refused call")
				}
			} else if r.Error != nil || !json.Valid(r.Result) || !containsState(r.Result, tt.wantState) {
				t.Errorf("got %s, want a task in state %s", body, tt.wantState)
			}
			if now, _ := agent.Note("notes/alice-groceries"); now.Text != before.Text {
				t.Fatalf("the note changed: %q", now.Text)
			}
		})
	}
}

// containsState reports whether a send's result is, or wraps (v1.0's
// {"task": …}), a task in state.
func containsState(result json.RawMessage, state string) bool {
	var v struct {
		Status struct{ State string } `json:"status"`
		Task   *struct {
			Status struct{ State string } `json:"status"`
		} `json:"task"`
	}
	if json.Unmarshal(result, &v) != nil {
		return false
	}
	if v.Task != nil {
		return v.Task.Status.State == state
	}
	return v.Status.State == state
}
