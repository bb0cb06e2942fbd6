package quickstart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
)

// ErrWalkthrough is returned when a walkthrough step did not behave as
// expected.
var ErrWalkthrough = errors.New("quickstart: walkthrough step failed")

// step is one narrated step of the walkthrough. run returns what to show
// the reader, or an error when the gateway did not behave as expected.
type step struct {
	title string
	run   func(ctx context.Context, s *session) (string, error)
}

// session is the state a walkthrough carries from step to step.
type session struct {
	w      *World
	c      *rpcClient
	parent *capability
	child  *capability
	a2e    *lab.Client
	// approvalID is the request waiting for approval, if any.
	approvalID string
	// notes is alice's capability for the notes agent.
	notes *capability
	// files is alice's capability for the files MCP server, and
	// filesChild the one the summarizer got from it.
	files, filesChild *capability
}

// Walkthrough runs the narrated quickstart story against w, writing it to
// out. It returns an error wrapping ErrWalkthrough at the first step that
// did not behave as expected.
func (w *World) Walkthrough(ctx context.Context, out io.Writer) error {
	s := &session{w: w, c: &rpcClient{base: w.URL, http: &http.Client{}}}
	fmt.Fprintf(out, "capgate demo: the quickstart world\n  gateway     %s\n  agents      documents, summarizer, notes, and the files MCP server (loopback)\n  principals  alice (finance), bob (contractors), carol (hr, editors), dave (security)\n\n", w.URL)
	for i, st := range steps() {
		fmt.Fprintf(out, "%2d. %s\n", i+1, st.title)
		detail, err := st.run(ctx, s)
		if detail != "" {
			fmt.Fprintf(out, "    %s\n", strings.ReplaceAll(detail, "\n", "\n    "))
		}
		if err != nil {
			fmt.Fprintf(out, "    FAILED: %v\n", err)
			return fmt.Errorf("%w: %d. %s: %w", ErrWalkthrough, i+1, st.title, err)
		}
		fmt.Fprintf(out, "    ok\n\n")
	}
	fmt.Fprintln(out, "Every step behaved as expected.")
	return nil
}

func steps() []step {
	out := append(basicSteps(), sepSteps()...)
	out = append(out, delegationSteps()...)
	out = append(out, approvalSteps()...)
	out = append(out, notesSteps()...)
	out = append(out, mcpSteps()...)
	out = append(out, mcpCapabilitySteps()...)
	return append(out, a2eSteps()...)
}

func basicSteps() []step {
	return []step{
		{"Anyone reads the documents agent's card through the gateway", stepCard},
		{"alice (dev key) sends a message to the documents agent", stepSend},
		{"The same call without credentials is refused with 401", stepNoCredentials},
		{"A wrong key is refused with 401 too", stepBadKey},
		{"alice streams a message: SSE events pass through as they come", stepStream},
		{"A method the gateway does not know is refused, never forwarded", stepUnknownMethod},
	}
}

func sendParams(text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"role": "user", "messageId": "demo-" + strings.ReplaceAll(text, " ", "-"),
		"parts": []map[string]any{{"kind": "text", "text": text}},
	}}
}

func stepCard(ctx context.Context, s *session) (string, error) {
	res, err := s.c.get(ctx, "/a2a/documents/.well-known/agent-card.json")
	if err != nil {
		return "", err
	}
	var card struct {
		URL    string `json:"url"`
		Grants []struct {
			ID string `json:"id"`
		} `json:"capabilityGrants"`
	}
	if res.Status != http.StatusOK || json.Unmarshal(res.Body, &card) != nil {
		return "", fmt.Errorf("card: HTTP %d: %s", res.Status, res.Body)
	}
	if card.URL != s.w.URL+"/a2a/documents" {
		return "", fmt.Errorf("card url %q does not point at the gateway", card.URL)
	}
	ids := make([]string, 0, len(card.Grants))
	for _, g := range card.Grants {
		ids = append(ids, g.ID)
	}
	return fmt.Sprintf("GET /a2a/documents/.well-known/agent-card.json\nurl %s\ncapabilityGrants %s", card.URL, strings.Join(ids, ", ")), nil
}

func stepSend(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", AliceKey, "message/send", sendParams("What can you do?"))
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	return "POST /a2a/documents message/send  ->  " + firstText(res.Result), nil
}

func stepNoCredentials(ctx context.Context, s *session) (string, error) {
	return s.refused(ctx, "")
}

func stepBadKey(ctx context.Context, s *session) (string, error) {
	return s.refused(ctx, "mallory-dev-key")
}

// refused checks that a call with bearer is refused with 401 and that the
// documents agent never saw it.
func (s *session) refused(ctx context.Context, bearer string) (string, error) {
	before := s.w.Documents.Recorder().Count()
	res, err := s.c.call(ctx, "documents", bearer, "message/send", sendParams("hello"))
	if err != nil {
		return "", err
	}
	if res.Status != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
		return "", fmt.Errorf("want 401 with a Bearer challenge, got HTTP %d", res.Status)
	}
	if err := s.upstreamUnchanged(before); err != nil {
		return "", err
	}
	return fmt.Sprintf("HTTP %d, WWW-Authenticate: %s; the agent saw nothing", res.Status, res.Header.Get("WWW-Authenticate")), nil
}

func (s *session) upstreamUnchanged(before int) error {
	if after := s.w.Documents.Recorder().Count(); after != before {
		return fmt.Errorf("the documents agent received %d request(s); a refused call must never reach it", after-before)
	}
	return nil
}

func stepStream(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", AliceKey, "message/stream", sendParams("stream please"))
	if err != nil {
		return "", err
	}
	n := strings.Count(string(res.Body), "data:")
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") || n < 2 {
		return "", fmt.Errorf("want an SSE stream of at least 2 events, got HTTP %d %q with %d events", res.Status, res.Header.Get("Content-Type"), n)
	}
	return fmt.Sprintf("POST /a2a/documents message/stream  ->  %d SSE events", n), nil
}

func stepUnknownMethod(ctx context.Context, s *session) (string, error) {
	before := s.w.Documents.Recorder().Count()
	res, err := s.c.call(ctx, "documents", AliceKey, "documents/dump_all", map[string]any{})
	if err != nil {
		return "", err
	}
	if err := res.expectError(-32601, ""); err != nil {
		return "", err
	}
	if err := s.upstreamUnchanged(before); err != nil {
		return "", err
	}
	return fmt.Sprintf("error %d %q; the agent saw nothing", res.Error.Code, res.Error.Message), nil
}

// firstText digs the first text part out of an A2A result (a message or a
// task), for narration.
func firstText(raw json.RawMessage) string {
	var v struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
		Status struct {
			Message struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"status"`
	}
	_ = json.Unmarshal(raw, &v)
	switch {
	case len(v.Parts) > 0:
		return v.Parts[0].Text
	case len(v.Status.Message.Parts) > 0:
		return v.Status.Message.Parts[0].Text
	}
	return string(raw)
}
