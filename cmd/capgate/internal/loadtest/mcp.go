package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// mcpPath is where capgate fronts the quickstart's files MCP server,
// which the upstream stands for in the load test.
const mcpPath = "/mcp/files"

// ToolCallBody is an MCP tools/call of read_file on c's handle,
// presenting c's id and token in params._meta, as InvokeBody does: the
// MCP front's full path.
func ToolCallBody(c Capability) []byte {
	type presented struct {
		CapabilityID    string `json:"capabilityId"`
		CapabilityToken string `json:"capabilityToken"`
	}
	type params struct {
		Name      string               `json:"name"`
		Arguments map[string]string    `json:"arguments"`
		Meta      map[string]presented `json:"_meta"`
	}
	return rpcBody(methodToolsCall, params{Name: "read_file", Arguments: map[string]string{"path": c.Handle},
		Meta: map[string]presented{"dev.capgate/capability": {CapabilityID: c.ID, CapabilityToken: c.Token}}})
}

// mcpHeader is RequestHeader with the Accept a Streamable HTTP client
// sends.
func mcpHeader() http.Header {
	h := RequestHeader()
	h.Set("Accept", "application/json, text/event-stream")
	return h
}

// MCPIssuanceBody is the a2a/capabilities/request the load test sends
// to /mcp/files: alice asks for files:read on the finance reports, which
// the quickstart policy allows (rule finance-read-files) from the
// server's catalog.
const MCPIssuanceBody = `{"jsonrpc":"2.0","id":1,"method":"` + methodRequest + `","params":` +
	`{"grants":["files:read"],"purpose":"loadtest","resourceQuery":{"collection":"finance","filter":{"kind":"report"}}}}`

// prepareMCP requests alice's capability at /mcp/files and checks one
// full tools/call with it.
func (c *Capgate) prepareMCP(ctx context.Context, client *http.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	status, body, err := exchangeWith(ctx, client, c.Server.URL+mcpPath, []byte(MCPIssuanceBody), mcpHeader())
	if err == nil {
		err = CheckResponse(status, body)
	}
	if err == nil {
		c.MCP, err = parseIssued(body)
	}
	if err != nil {
		return fmt.Errorf("%w: capgate (%s): capability request at %s: %w", ErrSetup, c.Variant, mcpPath, err)
	}
	status, body, err = exchangeWith(ctx, client, c.Server.URL+mcpPath, ToolCallBody(c.MCP), mcpHeader())
	if err == nil {
		err = CheckResponse(status, body)
	}
	if err != nil {
		return fmt.Errorf("%w: capgate (%s): first tools/call: %w", ErrSetup, c.Variant, err)
	}
	return nil
}
