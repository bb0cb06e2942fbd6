package mcpfront_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPromptsPerPolicy: prompts pass to a caller the policy could grant
// read on the server (alice), with every catalog id redacted from them;
// anyone else (bob) is refused -32047, and the server sees nothing.
func TestPromptsPerPolicy(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	alice := w.connect(t, aliceKey, "")
	list, err := alice.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != "summarize" {
		t.Fatalf("alice's prompts/list: %v %+v", err, list)
	}
	got, err := alice.GetPrompt(ctx, &sdk.GetPromptParams{Name: "summarize"})
	if err != nil {
		t.Fatalf("alice's prompts/get: %v", err)
	}
	if text := got.Messages[0].Content.(*sdk.TextContent).Text; strings.Contains(text, "corpus/") || !strings.Contains(text, "[resource]") {
		t.Errorf("prompt %q: a catalog id reached the caller", text)
	}

	// A real id in a prompt's arguments would have the server read a
	// resource the caller holds no capability for.
	before, seen := w.upstream.prompts.Load(), len(w.upstream.seen())
	_, err = alice.GetPrompt(ctx, &sdk.GetPromptParams{Name: "summarize", Arguments: map[string]string{"path": "corpus/secret.md"}})
	if code := codeOf(err); code != -32045 {
		t.Errorf("a real id in prompts/get: %v, want -32045", err)
	}
	if w.upstream.prompts.Load() != before || len(w.upstream.seen()) != seen {
		t.Error("the server saw a prompts/get naming a real id")
	}

	bob := w.connect(t, bobKey, "")
	tests := []struct {
		name string
		call func() error
	}{
		{"list", func() error { _, err := bob.ListPrompts(ctx, nil); return err }},
		{"get", func() error { _, err := bob.GetPrompt(ctx, &sdk.GetPromptParams{Name: "summarize"}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, seen := w.upstream.prompts.Load(), len(w.upstream.seen())
			if code := codeOf(tt.call()); code != -32047 {
				t.Errorf("bob's %s refused %d, want -32047", tt.name, code)
			}
			if w.upstream.prompts.Load() != before || len(w.upstream.seen()) != seen {
				t.Error("the server saw a refused call")
			}
		})
	}
}
