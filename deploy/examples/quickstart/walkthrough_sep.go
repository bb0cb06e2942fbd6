package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// capability is the part of an issued capability the walkthrough uses.
type capability struct {
	ID              string `json:"id"`
	Grant           string `json:"grant"`
	Token           string `json:"token"`
	ResourceHandles []struct {
		Handle      string `json:"handle"`
		DisplayName string `json:"displayName"`
	} `json:"resourceHandles"`
	Operations []string `json:"operations"`
	Expires    string   `json:"expires"`
	Depth      int      `json:"depth"`
}

func (c *capability) handle(name string) string {
	for _, h := range c.ResourceHandles {
		if h.DisplayName == name {
			return h.Handle
		}
	}
	return ""
}

func (c *capability) names() string {
	out := make([]string, 0, len(c.ResourceHandles))
	for _, h := range c.ResourceHandles {
		out = append(out, fmt.Sprintf("%s %q", h.Handle, h.DisplayName))
	}
	return strings.Join(out, ", ")
}

func decodeCapability(res *rpcResult) (*capability, error) {
	if err := res.expectResult(); err != nil {
		return nil, err
	}
	var r struct {
		Capabilities []capability `json:"capabilities"`
	}
	if err := json.Unmarshal(res.Result, &r); err != nil || len(r.Capabilities) != 1 {
		return nil, fmt.Errorf("want one capability, got %s", res.Result)
	}
	return &r.Capabilities[0], nil
}

func sepSteps() []step {
	return []step{
		{"alice asks for documents:read on the 2025-Q1 reports, to \"Summarize quarterly reports\"", stepRequest},
		{"alice retrieves \"Q1 Financial Summary\" with her capability", stepRetrieve},
		{"alice tries update_document: out of scope, refused with -32044", stepOutOfScope},
		{"bob presents alice's capabilityId: refused with -32046, he is not its holder", stepWrongHolder},
		{"alice attenuates: one handle, retrieve only", stepAttenuate},
		{"The child retrieves its one document, and is refused the other (-32045)", stepChildInvoke},
		{"alice revokes the parent: the child dies with it (-32043)", stepRevoke},
	}
}

func stepRequest(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", AliceKey, "a2a/capabilities/request", map[string]any{
		"grants": []string{"documents:read"}, "purpose": "Summarize quarterly reports",
		"resourceQuery": map[string]any{"collection": "reports", "filter": map[string]string{"quarter": "2025-Q1"}},
	})
	if err != nil {
		return "", err
	}
	c, err := decodeCapability(res)
	if err != nil {
		return "", err
	}
	if c.handle("Q1 Financial Summary") == "" || c.handle("Q1 Sales Report") == "" || len(c.ResourceHandles) != 2 {
		return "", fmt.Errorf("want handles for the two Q1 reports, got %s", c.names())
	}
	s.parent = c
	return fmt.Sprintf("capability %s (%s), operations %s, expires %s\nhandles: %s",
		c.ID, c.Grant, strings.Join(c.Operations, ","), c.Expires, c.names()), nil
}

func (s *session) invoke(ctx context.Context, key, skill, capID, handle string) (*rpcResult, error) {
	return s.c.call(ctx, "documents", key, "a2a/skill/invoke", map[string]any{
		"skill": skill, "capabilityId": capID, "arguments": map[string]any{"resourceHandle": handle},
	})
}

func stepRetrieve(ctx context.Context, s *session) (string, error) {
	res, err := s.invoke(ctx, AliceKey, "retrieve_document", s.parent.ID, s.parent.handle("Q1 Financial Summary"))
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	var doc struct {
		Title   string `json:"title"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(res.Result, &doc)
	first, _, _ := strings.Cut(doc.Content, "\n")
	return fmt.Sprintf("%q: %s", doc.Title, first), nil
}

// refusedInvoke runs one invocation that must be refused with code and
// never reach the documents agent.
func (s *session) refusedInvoke(ctx context.Context, key, skill, capID, handle string, code int) (string, error) {
	before := s.w.Documents.Recorder().Count()
	res, err := s.invoke(ctx, key, skill, capID, handle)
	if err != nil {
		return "", err
	}
	if err := res.expectError(code, ""); err != nil {
		return "", err
	}
	if err := s.upstreamUnchanged(before); err != nil {
		return "", err
	}
	return fmt.Sprintf("error %d %s: %s; the agent saw nothing", res.Error.Code, res.Error.Reason(), res.Error.Message), nil
}

func stepOutOfScope(ctx context.Context, s *session) (string, error) {
	return s.refusedInvoke(ctx, AliceKey, "update_document", s.parent.ID, s.parent.handle("Q1 Financial Summary"), jsonrpc.CodeOperationNotPermitted)
}

func stepWrongHolder(ctx context.Context, s *session) (string, error) {
	return s.refusedInvoke(ctx, BobKey, "retrieve_document", s.parent.ID, s.parent.handle("Q1 Financial Summary"), jsonrpc.CodeHolderMismatch)
}

func stepAttenuate(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", AliceKey, "a2a/capabilities/attenuate", map[string]any{
		"capabilityId": s.parent.ID,
		"constraints": map[string]any{
			"resourceHandles": []string{s.parent.handle("Q1 Financial Summary")}, "operations": []string{"retrieve"},
		},
	})
	if err != nil {
		return "", err
	}
	c, err := decodeCapability(res)
	if err != nil {
		return "", err
	}
	if c.Depth != 1 || len(c.ResourceHandles) != 1 || strings.Join(c.Operations, ",") != "retrieve" {
		return "", fmt.Errorf("child is not the narrowed copy: %+v", c)
	}
	s.child = c
	return fmt.Sprintf("child %s (depth %d), operations %s, handles: %s", c.ID, c.Depth, strings.Join(c.Operations, ","), c.names()), nil
}

func stepChildInvoke(ctx context.Context, s *session) (string, error) {
	res, err := s.invoke(ctx, AliceKey, "retrieve_document", s.child.ID, s.child.ResourceHandles[0].Handle)
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	refused, err := s.refusedInvoke(ctx, AliceKey, "retrieve_document", s.child.ID, s.parent.handle("Q1 Sales Report"), jsonrpc.CodeResourceNotPermitted)
	if err != nil {
		return "", err
	}
	return "retrieve \"Q1 Financial Summary\" with the child: ok\nretrieve \"Q1 Sales Report\" with the child: " + refused, nil
}

func stepRevoke(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", AliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": s.parent.ID})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	refused, err := s.refusedInvoke(ctx, AliceKey, "retrieve_document", s.child.ID, s.child.ResourceHandles[0].Handle, jsonrpc.CodeCapabilityRevoked)
	if err != nil {
		return "", err
	}
	return "parent revoked; the child's invocation: " + refused, nil
}
