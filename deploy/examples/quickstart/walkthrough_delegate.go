package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

func delegationSteps() []step {
	return []step{
		{"alice asks again and delegates one handle, retrieve only, to the summarizer", stepDelegate},
		{"The summarizer, holding the child, is refused the other handle (-32045)", stepSummarizerOtherHandle},
		{"A streaming call to the summarizer, whose card has no streaming, is refused before forwarding", stepStreamRefused},
		{"alice revokes: the summarizer stops working at once (-32043)", stepRevokeDelegated},
	}
}

func stepDelegate(ctx context.Context, s *session) (string, error) {
	if _, err := stepRequest(ctx, s); err != nil {
		return "", err
	}
	fin := s.parent.handle("Q1 Financial Summary")
	params := sendParams("Summarize this document")
	params["capabilities"] = []string{s.parent.ID}
	params["attenuations"] = map[string]any{s.parent.ID: map[string]any{
		"resourceHandles": []string{fin}, "operations": []string{"retrieve"},
	}}
	res, err := s.c.call(ctx, "summarizer", AliceKey, "message/send", params)
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	answer := firstText(res.Result)
	if !strings.Contains(answer, "Q1 Financial Summary") {
		return "", fmt.Errorf("the summarizer did not read the delegated document: %s", answer)
	}
	child, err := s.delegatedChild()
	if err != nil {
		return "", err
	}
	s.child = child
	return fmt.Sprintf("POST /a2a/summarizer message/send with capabilities [%s]\nthe summarizer got child %s (holder agent:summarizer, retrieve, 1 handle) and answered:\n%s",
		s.parent.ID, child.ID, answer), nil
}

// delegatedChild reads the child capability the summarizer received, as
// the summarizer itself sees it.
func (s *session) delegatedChild() (*capability, error) {
	reqs := s.w.Summarizer.Recorder().Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method != http.MethodPost {
			continue
		}
		var body struct {
			Params struct {
				Capabilities []capability `json:"capabilities"`
			} `json:"params"`
		}
		if json.Unmarshal(reqs[i].Body, &body) == nil && len(body.Params.Capabilities) == 1 {
			return &body.Params.Capabilities[0], nil
		}
	}
	return nil, fmt.Errorf("the summarizer received no delegated capability")
}

func (s *session) summarizerInvoke(ctx context.Context, handle string) (*rpcResult, error) {
	return s.c.call(ctx, "documents", SummarizerKey, "a2a/skill/invoke", map[string]any{
		"skill": "retrieve_document", "capabilityId": s.child.ID, "capabilityToken": s.child.Token,
		"arguments": map[string]any{"resourceHandle": handle},
	})
}

func stepSummarizerOtherHandle(ctx context.Context, s *session) (string, error) {
	before := s.w.Documents.Recorder().Count()
	res, err := s.summarizerInvoke(ctx, s.parent.handle("Q1 Sales Report"))
	if err != nil {
		return "", err
	}
	if err := res.expectError(-32045, "resource_not_permitted"); err != nil {
		return "", err
	}
	if err := s.upstreamUnchanged(before); err != nil {
		return "", err
	}
	return "retrieve \"Q1 Sales Report\" as agent:summarizer: error -32045 resource_not_permitted; the agent saw nothing", nil
}

func stepStreamRefused(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "summarizer", AliceKey, "message/stream", sendParams("stream to me"))
	if err != nil {
		return "", err
	}
	if err := res.expectError(-32004, "missing_capability"); err != nil {
		return "", err
	}
	return "error -32004 missing_capability: " + res.Error.Message, nil
}

func stepRevokeDelegated(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", AliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": s.parent.ID})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	res, err = s.summarizerInvoke(ctx, s.child.ResourceHandles[0].Handle)
	if err != nil {
		return "", err
	}
	if err := res.expectError(-32043, "capability_revoked"); err != nil {
		return "", err
	}
	return "the summarizer's retrieval with its child: error -32043 capability_revoked", nil
}
