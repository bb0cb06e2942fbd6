package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The MCP steps: the files server, built on the official MCP Go SDK,
// fronted at /mcp/files.

// mcpPath is where the gateway fronts the files MCP server.
const mcpPath = "/mcp/files"

func mcpSteps() []step {
	return []step{
		{"alice lists the files MCP server's tools through capgate: those the policy could grant her", stepMCPList},
		{"A tool call without a capability is refused (-32040); the server sees nothing", stepMCPNoCapability},
	}
}

// mcp posts one JSON-RPC call to /mcp/files as a Streamable HTTP client
// does.
func (c *rpcClient) mcp(ctx context.Context, bearer, method string, params any) (*rpcResult, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	return c.postWith(ctx, mcpPath, bearer, body, "application/json, text/event-stream")
}

// filesCallsUnchanged fails when a tool call reached the files server
// since it had seen before.
func (s *session) filesCallsUnchanged(before int) error {
	if after := len(s.w.Files.Calls()); after != before {
		return fmt.Errorf("the files server ran %d tool call(s); a refused call must never reach it", after-before)
	}
	return nil
}

func stepMCPList(ctx context.Context, s *session) (string, error) {
	res, err := s.c.mcp(ctx, AliceKey, "tools/list", map[string]any{})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res.Result, &list); err != nil {
		return "", fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"read_file", "search_files"}) {
		return "", fmt.Errorf("tools/list listed %v, want read_file and search_files (nobody may write)", names)
	}
	return "POST /mcp/files tools/list  ->  " + strings.Join(names, ", ") + " (write_file is no one's to call)", nil
}

func stepMCPNoCapability(ctx context.Context, s *session) (string, error) {
	before := len(s.w.Files.Calls())
	res, err := s.c.mcp(ctx, AliceKey, "tools/call", map[string]any{
		"name": "read_file", "arguments": map[string]any{"path": "files/finance/q1-2026.md"},
	})
	if err != nil {
		return "", err
	}
	if err := res.expectError(-32040, "capability_required"); err != nil {
		return "", err
	}
	if err := s.filesCallsUnchanged(before); err != nil {
		return "", err
	}
	return "tools/call read_file {path: files/finance/q1-2026.md}: error -32040 capability_required; the server saw nothing", nil
}
