package summarizer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/client"
)

// FilesGrantPrefix starts the grant id of a capability for the files MCP
// server ("files:read"): the summarizer reads its handles with the
// server's read_file tool, through the gateway's MCP front, instead of
// the documents agent's retrieve_document.
const FilesGrantPrefix = "files:"

// metaCapability is the params._meta key under which a tools/call
// presents its capability to the gateway.
const metaCapability = "dev.capgate/capability"

// fileReader calls read_file on the gateway's MCP front as the
// summarizer, with the official MCP Go SDK client. Its credential and
// the capabilities go to the configured endpoint only, and redirects are
// refused.
type fileReader struct {
	endpoint string
	client   *http.Client
}

func newFileReader(endpoint, credential string, hc *http.Client) (*fileReader, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: FilesURL %q must be an absolute http(s) URL", ErrInvalidOptions, endpoint)
	}
	base := http.DefaultTransport
	timeout := client.DefaultTimeout
	if hc != nil {
		if hc.Transport != nil {
			base = hc.Transport
		}
		timeout = hc.Timeout
	}
	return &fileReader{endpoint: endpoint, client: &http.Client{
		Transport: &onlyTo{base: base, endpoint: u, credential: credential},
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("summarizer: redirects are not followed")
		},
	}}, nil
}

// onlyTo sends the credential with requests to endpoint, and refuses any
// other request.
type onlyTo struct {
	base       http.RoundTripper
	endpoint   *url.URL
	credential string
}

func (o *onlyTo) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != o.endpoint.Scheme || r.URL.Host != o.endpoint.Host || r.URL.Path != o.endpoint.Path {
		return nil, fmt.Errorf("summarizer: refusing to send its credential to %s", r.URL.Redacted())
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+o.credential)
	return o.base.RoundTrip(r)
}

// read calls read_file for one handle under one capability, in a session
// of its own. A JSON-RPC error is a refusal in the Outcome; err is for
// technical failure.
func (fr *fileReader) read(ctx context.Context, c Capability, h ResourceHandle) (Outcome, error) {
	out := Outcome{CapabilityID: c.ID, Handle: h.Handle, DisplayName: h.DisplayName}
	mc := sdk.NewClient(&sdk.Implementation{Name: AgentName, Version: "1.0.0"}, nil)
	cs, err := mc.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: fr.endpoint, HTTPClient: fr.client, MaxRetries: -1}, nil)
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrGatewayCall, err)
	}
	defer cs.Close()
	presented := map[string]any{"capabilityId": c.ID}
	if c.Token != "" {
		presented = map[string]any{"capabilityToken": c.Token}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": h.Handle},
		Meta: sdk.Meta{metaCapability: presented}})
	if we, ok := errors.AsType[*sdkrpc.Error](err); ok {
		out.Refused, out.Code, out.Reason = true, int(we.Code), mcpReason(we)
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrGatewayCall, err)
	}
	text := toolText(res)
	if res.IsError {
		return out, fmt.Errorf("%w: read_file failed: %s", ErrGatewayCall, text)
	}
	out.Title = h.DisplayName
	if out.Title == "" {
		out.Title = h.Handle
	}
	out.FirstLine = firstLine(strings.TrimPrefix(text, h.Handle+": "))
	return out, nil
}

// toolText is the text of a tool result's text contents.
func toolText(res *sdk.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// mcpReason is the gateway's error.data.reason, or the error's message.
func mcpReason(e *sdkrpc.Error) string {
	var data struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal(e.Data, &data) == nil && data.Reason != "" {
		return data.Reason
	}
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("JSON-RPC error %d", e.Code)
}
