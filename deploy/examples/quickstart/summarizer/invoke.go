package summarizer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/gateway/client"
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

// invoker calls a2a/skill/invoke on the gateway as the summarizer, with
// the capgate client: tokens and the credential go to the configured
// documents URL only, and redirects are refused.
type invoker struct {
	gw *client.Client
}

func newInvoker(documentsURL, credential string, hc *http.Client) (*invoker, error) {
	gw, err := client.NewEndpoint(documentsURL, client.Options{
		HTTPClient: hc, Credential: credential, MaxResponseBytes: maxResponseBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return &invoker{gw: gw}, nil
}

// retrieve calls retrieve_document for one handle under one capability.
// A JSON-RPC error is a refusal in the Outcome; err is for technical failure.
func (iv *invoker) retrieve(ctx context.Context, c Capability, h ResourceHandle) (Outcome, error) {
	out := Outcome{CapabilityID: c.ID, Handle: h.Handle, DisplayName: h.DisplayName}
	raw, err := iv.gw.Invoke(ctx, client.Capability{ID: c.ID, Token: c.Token}, documents.SkillRetrieve,
		map[string]any{"resourceHandle": h.Handle})
	if rpcErr, ok := errors.AsType[*client.RPCError](err); ok {
		out.Refused, out.Code, out.Reason = true, rpcErr.Code, rpcReason(rpcErr)
		return out, nil
	}
	if err != nil {
		return out, gatewayFailure(err)
	}
	var doc documents.DocumentView
	if err := json.Unmarshal(raw, &doc); err != nil {
		return out, fmt.Errorf("%w: the result is not a document: %w", ErrGatewayCall, err)
	}
	out.Title = doc.Title
	out.FirstLine = firstLine(doc.Content)
	return out, nil
}

// gatewayFailure wraps a technical failure of the client in ErrGatewayCall,
// naming the HTTP status when there was one.
func gatewayFailure(err error) error {
	if se, ok := errors.AsType[*client.StatusError](err); ok {
		return fmt.Errorf("%w: HTTP %d", ErrGatewayCall, se.StatusCode)
	}
	if errors.Is(err, client.ErrUnauthenticated) {
		return fmt.Errorf("%w: HTTP 401 (the gateway refused the summarizer's credential)", ErrGatewayCall)
	}
	return fmt.Errorf("%w: %w", ErrGatewayCall, err)
}

func rpcReason(e *client.RPCError) string {
	if e.Reason != "" {
		return e.Reason
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
