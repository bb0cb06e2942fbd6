package summarizer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/capgate/capgate/gateway/quickstart/documents"
)

// maxResponseBytes bounds what the summarizer reads from the gateway.
const maxResponseBytes = 1 << 20

// Outcome is what one retrieve_document invocation produced: either the
// document (Title, FirstLine) or a refusal (Refused, Code, Reason).
type Outcome struct {
	CapabilityID string `json:"capabilityId"`          // capability the call presented
	Handle       string `json:"handle"`                // handle it asked for
	DisplayName  string `json:"displayName,omitempty"` // the handle's display name
	Title        string `json:"title,omitempty"`       // retrieved title
	FirstLine    string `json:"firstLine,omitempty"`   // first line of the retrieved content
	Refused      bool   `json:"refused,omitempty"`     // the gateway answered a JSON-RPC error
	Code         int    `json:"code,omitempty"`        // that error's code
	// Reason is the gateway's error.data.reason (e.g. "capability_revoked"),
	// or its error.message when it gave no reason.
	Reason string `json:"reason,omitempty"`
	// Error describes a technical failure (set by the executor).
	Error string `json:"error,omitempty"`
}

// invoker calls a2a/skill/invoke on the gateway as the summarizer.
type invoker struct {
	url        string
	credential string
	client     *http.Client
	nextID     atomic.Int64
}

type invokeRequest struct {
	JSONRPC string       `json:"jsonrpc"`
	ID      int64        `json:"id"`
	Method  string       `json:"method"`
	Params  invokeParams `json:"params"`
}

type invokeParams struct {
	Skill           string            `json:"skill"`
	Arguments       map[string]string `json:"arguments"`
	CapabilityID    string            `json:"capabilityId"`
	CapabilityToken string            `json:"capabilityToken,omitempty"`
}

type invokeResponse struct {
	Result *documents.DocumentView `json:"result"`
	Error  *documents.RPCError     `json:"error"`
}

// retrieve calls retrieve_document for one handle under one capability.
// A JSON-RPC error is a refusal in the Outcome; err is for technical failure.
func (iv *invoker) retrieve(ctx context.Context, c Capability, h ResourceHandle) (Outcome, error) {
	out := Outcome{CapabilityID: c.ID, Handle: h.Handle, DisplayName: h.DisplayName}
	body, err := json.Marshal(invokeRequest{
		JSONRPC: "2.0", ID: iv.nextID.Add(1), Method: documents.MethodSkillInvoke,
		Params: invokeParams{
			Skill:        documents.SkillRetrieve,
			Arguments:    map[string]string{"resourceHandle": h.Handle},
			CapabilityID: c.ID, CapabilityToken: c.Token,
		},
	})
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrGatewayCall, err)
	}
	resp, err := iv.post(ctx, body)
	if err != nil {
		return out, err
	}
	switch {
	case resp.Error != nil:
		out.Refused, out.Code, out.Reason = true, resp.Error.Code, rpcReason(resp.Error)
	case resp.Result != nil:
		out.Title = resp.Result.Title
		out.FirstLine = firstLine(resp.Result.Content)
	default:
		return out, fmt.Errorf("%w: response has neither result nor error", ErrGatewayCall)
	}
	return out, nil
}

func (iv *invoker) post(ctx context.Context, body []byte) (invokeResponse, error) {
	var out invokeResponse
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, iv.url, bytes.NewReader(body))
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrGatewayCall, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+iv.credential)
	resp, err := iv.client.Do(req)
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrGatewayCall, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return out, fmt.Errorf("%w: reading response: %w", ErrGatewayCall, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, fmt.Errorf("%w: HTTP %d", ErrGatewayCall, resp.StatusCode)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("%w: not a JSON-RPC response: %w", ErrGatewayCall, err)
	}
	return out, nil
}

func rpcReason(e *documents.RPCError) string {
	if r, ok := e.Data["reason"].(string); ok && r != "" {
		return r
	}
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("JSON-RPC error %d", e.Code)
}

// maxFirstLine bounds how much of a first line the answer quotes.
const maxFirstLine = 300

func firstLine(content string) string {
	line, _, _ := strings.Cut(content, "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > maxFirstLine {
		line = string(r[:maxFirstLine]) + "…"
	}
	return line
}
