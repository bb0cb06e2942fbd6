package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// notesSteps show capgate in front of an agent that never heard of
// capabilities: notes, built on the A2A SDK alone, fronted with gated
// messaging.
func notesSteps() []step {
	return []step{
		{"alice messages the notes agent (a plain A2A SDK agent, gated messaging) with no capability: -32040", stepNotesNoCapability},
		{"alice asks for notes:read on her personal notes", stepNotesRequest},
		{"alice sends \"read <handle>\" with her capability: the agent reads the note, and the caller never sees its storage id", stepNotesRead},
		{"alice names skill notes.write with her read capability: out of scope, -32044", stepNotesOutOfScope},
		{"alice names a note by its storage id instead of a handle: -32045", stepNotesRealID},
		{"alice revokes her notes capability: her next message is refused (-32043)", stepNotesRevoked},
	}
}

// notesSend sends text to the notes agent as alice, naming capID (if any)
// and skill in the message's metadata under the extension's URI.
func (s *session) notesSend(ctx context.Context, text, capID, skill string) (*rpcResult, error) {
	msg := map[string]any{"kind": "message", "role": "user", "messageId": "notes-" + strings.ReplaceAll(text, " ", "-"),
		"parts": []map[string]any{{"kind": "text", "text": text}}}
	ext := map[string]any{}
	if capID != "" {
		ext["capabilityId"] = capID
	}
	if skill != "" {
		ext["skill"] = skill
	}
	if len(ext) > 0 {
		msg["metadata"] = map[string]any{agentcard.ExtensionURI: ext}
	}
	return s.c.call(ctx, "notes", AliceKey, "message/send", map[string]any{"message": msg})
}

// refusedNote sends one message that must be refused with code and never
// reach the notes agent.
func (s *session) refusedNote(ctx context.Context, text, capID, skill string, code int) (string, error) {
	before := s.w.Notes.Recorder.CountRPC("message/send")
	res, err := s.notesSend(ctx, text, capID, skill)
	if err != nil {
		return "", err
	}
	if err := res.expectError(code, ""); err != nil {
		return "", err
	}
	if after := s.w.Notes.Recorder.CountRPC("message/send"); after != before {
		return "", fmt.Errorf("the notes agent received %d request(s); a refused message must never reach it", after-before)
	}
	return fmt.Sprintf("error %d %s: %s; the agent saw nothing", res.Error.Code, res.Error.Reason(), res.Error.Message), nil
}

func stepNotesNoCapability(ctx context.Context, s *session) (string, error) {
	return s.refusedNote(ctx, "read my groceries", "", "", jsonrpc.CodeCapabilityRequired)
}

func stepNotesRequest(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "notes", AliceKey, "a2a/capabilities/request", map[string]any{
		"grants": []string{"notes:read"}, "purpose": "Plan the shopping",
		"resourceQuery": map[string]any{"collection": "personal"},
	})
	if err != nil {
		return "", err
	}
	c, err := decodeCapability(res)
	if err != nil {
		return "", err
	}
	if c.handle("Alice's groceries") == "" || len(c.ResourceHandles) != 1 {
		return "", fmt.Errorf("want one handle, for alice's groceries (not bob's ideas), got %s", c.names())
	}
	s.notes = c
	return fmt.Sprintf("capability %s (%s), operations %s\nhandles: %s", c.ID, c.Grant, strings.Join(c.Operations, ","), c.names()), nil
}

func stepNotesRead(ctx context.Context, s *session) (string, error) {
	h := s.notes.handle("Alice's groceries")
	res, err := s.notesSend(ctx, "read "+h, s.notes.ID, "notes.read")
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	if strings.Contains(string(res.Body), "notes/") {
		return "", fmt.Errorf("the answer carries a storage id: %s", res.Body)
	}
	var task struct {
		Status struct {
			State string `json:"state"`
		} `json:"status"`
		Artifacts []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal(res.Result, &task); err != nil || task.Status.State != "completed" || len(task.Artifacts) == 0 {
		return "", fmt.Errorf("want a completed task with the note, got %s", res.Result)
	}
	got := s.w.Notes.Recorder.Requests()
	forwarded := string(got[len(got)-1].Body)
	if !strings.Contains(forwarded, "read notes/alice-groceries") || strings.Contains(forwarded, s.notes.ID) {
		return "", fmt.Errorf("the agent should receive the note's id and no capability, got %s", forwarded)
	}
	note := strings.ReplaceAll(task.Artifacts[0].Parts[0].Text, "\n", " / ")
	return fmt.Sprintf("the agent received \"read notes/alice-groceries\"; alice got %q, and her handle %s wherever the agent's answer named the note", note, h), nil
}

func stepNotesOutOfScope(ctx context.Context, s *session) (string, error) {
	return s.refusedNote(ctx, "append "+s.notes.handle("Alice's groceries")+": butter", s.notes.ID, "notes.write", jsonrpc.CodeOperationNotPermitted)
}

func stepNotesRealID(ctx context.Context, s *session) (string, error) {
	return s.refusedNote(ctx, "read notes/bob-ideas", s.notes.ID, "notes.read", jsonrpc.CodeResourceNotPermitted)
}

func stepNotesRevoked(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "notes", AliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": s.notes.ID})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	return s.refusedNote(ctx, "read "+s.notes.handle("Alice's groceries"), s.notes.ID, "notes.read", jsonrpc.CodeCapabilityRevoked)
}
