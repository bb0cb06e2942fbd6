package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
)

// mcpPath is where capgate fronts the quickstart's files MCP server,
// which the upstream stands for in the load test.
const mcpPath = "/mcp/files"

// mcpFile is the storage id the MCP step's capability designates.
const mcpFile = "files/finance/q1-2026.md"

// ToolCallBody is an MCP tools/call of read_file on c's handle,
// presenting c's token in params._meta: the MCP front's full path.
func ToolCallBody(c Capability) []byte {
	type presented struct {
		CapabilityToken string `json:"capabilityToken"`
	}
	type params struct {
		Name      string               `json:"name"`
		Arguments map[string]string    `json:"arguments"`
		Meta      map[string]presented `json:"_meta"`
	}
	return rpcBody(methodToolsCall, params{Name: "read_file", Arguments: map[string]string{"path": c.Handle},
		Meta: map[string]presented{"dev.capgate/capability": {CapabilityToken: c.Token}}})
}

// mcpHeader is RequestHeader with the Accept a Streamable HTTP client
// sends.
func mcpHeader() http.Header {
	h := RequestHeader()
	h.Set("Accept", "application/json, text/event-stream")
	return h
}

// gatewayKeys is the key set a gateway under test signs with: the one
// given, or a new one, so that the load test can sign the MCP step's
// capability with it.
func gatewayKeys(ks *captoken.KeySet) (*captoken.KeySet, error) {
	if ks != nil {
		return ks, nil
	}
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		return nil, fmt.Errorf("%w: capability keys: %w", ErrSetup, err)
	}
	return ks, nil
}

// mintMCP signs alice a read capability on the files server for mcpFile,
// as issuance would: the MCP front does not issue capabilities yet. It is
// presented by token, so the front verifies it without the index.
func mintMCP(ks *captoken.KeySet, issuer string, now time.Time) (Capability, error) {
	const alice = "user:alice@example.com"
	h := captoken.NewHandle()
	c := captoken.Claims{
		Issuer: issuer, Principal: alice, Holder: alice, Audience: "files",
		CapabilityID: captoken.NewCapabilityID(), Grant: "files:read", Operations: []string{"read"}, Handles: []string{h},
		Expiry: captoken.NewNumericDate(now.Add(24 * time.Hour)), NotBefore: captoken.NewNumericDate(now.Add(-time.Minute)),
		IssuedAt: captoken.NewNumericDate(now.Add(-time.Minute)), RevocationID: captoken.NewRevocationID(),
	}
	token, err := captoken.Mint(ks, c, map[string]string{h: mcpFile})
	if err != nil {
		return Capability{}, fmt.Errorf("%w: mcp capability: %w", ErrSetup, err)
	}
	return Capability{ID: c.CapabilityID, Token: token, Handle: h}, nil
}

// prepareMCP signs the MCP step's capability and checks one full
// tools/call with it.
func (c *Capgate) prepareMCP(ctx context.Context, client *http.Client, issuer string, now time.Time) error {
	var err error
	if c.MCP, err = mintMCP(c.keys, issuer, now); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	status, body, err := exchangeWith(ctx, client, c.Server.URL+mcpPath, ToolCallBody(c.MCP), mcpHeader())
	if err == nil {
		err = CheckResponse(status, body)
	}
	if err != nil {
		return fmt.Errorf("%w: capgate (%s): first tools/call: %w", ErrSetup, c.Variant, err)
	}
	return nil
}
