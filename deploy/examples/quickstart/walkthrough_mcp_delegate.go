package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// The MCP steps that issue, use, delegate and revoke a capability for
// the files server.

func mcpCapabilitySteps() []step {
	return []step{
		{"alice asks /mcp/files for read on the 2026 reports: two files, by handle", stepMCPRequest},
		{"alice calls read_file with a handle: the server reads the storage id, she sees her handle", stepMCPRead},
		{"write_file is outside her capability (-32044); the server sees nothing", stepMCPWrite},
		{"A file outside her capability is refused (-32045), even by its storage id", stepMCPOutside},
		{"alice delegates the Q1 report to the summarizer over A2A; it reads the file through /mcp/files with its child", stepMCPDelegate},
		{"alice revokes: the summarizer's next tool call is refused (-32043); the server sees nothing", stepMCPRevoke},
	}
}

// filesStorageID is the storage id of the file alice reads; it must never
// reach her.
const filesStorageID = "files/finance/q1-2026.md"

// withCapability is tools/call params presenting c by id.
func withCapability(c *capability, tool string, args map[string]any) map[string]any {
	return map[string]any{"name": tool, "arguments": args,
		"_meta": map[string]any{"dev.capgate/capability": map[string]any{"capabilityId": c.ID}}}
}

func stepMCPRequest(ctx context.Context, s *session) (string, error) {
	res, err := s.c.mcp(ctx, AliceKey, "a2a/capabilities/request", map[string]any{
		"grants": []string{"files:read"}, "purpose": "Summarize the 2026 reports",
		"resourceQuery": map[string]any{"collection": "finance", "filter": map[string]any{"kind": "report"}},
	})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	var out struct {
		Capabilities []capability `json:"capabilities"`
	}
	if err := json.Unmarshal(res.Result, &out); err != nil || len(out.Capabilities) != 1 {
		return "", fmt.Errorf("want one capability: %s", res.Result)
	}
	c := &out.Capabilities[0]
	if len(c.ResourceHandles) != 2 || c.handle("Q1 2026 report") == "" || c.handle("Q2 2026 report") == "" {
		return "", fmt.Errorf("want the two 2026 reports, got %s", c.names())
	}
	if strings.Contains(string(res.Body), "files/") {
		return "", fmt.Errorf("the answer names a storage id: %s", res.Body)
	}
	s.files = c
	return fmt.Sprintf("POST /mcp/files a2a/capabilities/request files:read, collection finance, kind report\n%s: operations %v, handles %s",
		c.ID, c.Operations, c.names()), nil
}

func stepMCPRead(ctx context.Context, s *session) (string, error) {
	h := s.files.handle("Q1 2026 report")
	res, err := s.c.mcp(ctx, AliceKey, "tools/call", withCapability(s.files, "read_file", map[string]any{"path": h}))
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	calls := s.w.Files.Calls()
	if len(calls) == 0 || calls[len(calls)-1].Path != filesStorageID {
		return "", fmt.Errorf("the server was not asked for %s: %+v", filesStorageID, calls)
	}
	if strings.Contains(string(res.Body), "files/") || !strings.Contains(string(res.Body), h) {
		return "", fmt.Errorf("the answer must name her handle and no storage id: %s", res.Body)
	}
	return fmt.Sprintf("tools/call read_file {path: %s}\nthe server read %s; alice got: %s", h, filesStorageID, toolText(res.Result)), nil
}

// toolText is the text content of a tool result.
func toolText(raw json.RawMessage) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r) // not a tool result: no text
	var texts []string
	for _, c := range r.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n")
}

// refusedTool calls a tool as bearer and fails unless the gateway refused
// it with code and reason and the files server saw nothing.
func (s *session) refusedTool(ctx context.Context, bearer string, params map[string]any, code int, reason string) error {
	before := len(s.w.Files.Calls())
	res, err := s.c.mcp(ctx, bearer, "tools/call", params)
	if err != nil {
		return err
	}
	if err := res.expectError(code, reason); err != nil {
		return err
	}
	return s.filesCallsUnchanged(before)
}

func stepMCPWrite(ctx context.Context, s *session) (string, error) {
	h := s.files.handle("Q1 2026 report")
	if err := s.refusedTool(ctx, AliceKey, withCapability(s.files, "write_file", map[string]any{"path": h, "content": "x"}),
		-32044, "operation_not_permitted"); err != nil {
		return "", err
	}
	return "tools/call write_file: error -32044 operation_not_permitted; the server saw nothing", nil
}

func stepMCPOutside(ctx context.Context, s *session) (string, error) {
	if err := s.refusedTool(ctx, AliceKey, withCapability(s.files, "read_file", map[string]any{"path": "files/finance/forecast-2027.md"}),
		-32045, "resource_not_permitted"); err != nil {
		return "", err
	}
	return "tools/call read_file {path: files/finance/forecast-2027.md}: error -32045 resource_not_permitted; the server saw nothing", nil
}

func stepMCPDelegate(ctx context.Context, s *session) (string, error) {
	q1 := s.files.handle("Q1 2026 report")
	params := sendParams("Summarize the Q1 report")
	params["capabilities"] = []string{s.files.ID}
	params["attenuations"] = map[string]any{s.files.ID: map[string]any{"resourceHandles": []string{q1}, "operations": []string{"read"}}}
	before := len(s.w.Files.Calls())
	res, err := s.c.call(ctx, "summarizer", AliceKey, "message/send", params)
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	answer := firstText(res.Result)
	if !strings.Contains(answer, "Q1 2026 report: Q1 2026: revenue") {
		return "", fmt.Errorf("the summarizer did not read the delegated file: %s", answer)
	}
	calls := s.w.Files.Calls()
	if len(calls) != before+1 || calls[before].Path != filesStorageID {
		return "", fmt.Errorf("the server saw %+v, want one read of %s", calls[before:], filesStorageID)
	}
	child, err := s.delegatedChild()
	if err != nil {
		return "", err
	}
	if child.Grant != "files:read" || len(child.ResourceHandles) != 1 {
		return "", fmt.Errorf("the summarizer's child is %+v, want files:read on one file", child)
	}
	s.filesChild = child
	return fmt.Sprintf("POST /a2a/summarizer message/send with capabilities [%s], attenuated to %s\nthe summarizer got child %s (holder agent:summarizer) and called read_file through /mcp/files; it answered:\n%s",
		s.files.ID, q1, child.ID, answer), nil
}

func stepMCPRevoke(ctx context.Context, s *session) (string, error) {
	res, err := s.c.mcp(ctx, AliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": s.files.ID})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	h := s.filesChild.ResourceHandles[0].Handle
	if err := s.refusedTool(ctx, SummarizerKey, withCapability(s.filesChild, "read_file", map[string]any{"path": h}),
		-32043, "capability_revoked"); err != nil {
		return "", err
	}
	return fmt.Sprintf("POST /mcp/files a2a/capabilities/revoke %s\nthe summarizer's read_file with its child: error -32043 capability_revoked; the server saw nothing", s.files.ID), nil
}
