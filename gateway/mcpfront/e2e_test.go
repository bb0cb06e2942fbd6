package mcpfront_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// versions are the revisions the front speaks: the newest the SDK
// implements (stateless, server/discover) and the one before it
// (initialize and a session).
var versions = []string{"2026-07-28", "2025-11-25"}

// TestListAndCall: through the gateway, the official client initializes,
// lists only the tools the gateway fronts (the policy could grant alice
// both), and calls read_file with a
// handle; the server reads the real file, and the caller sees its handle
// where the server wrote the real id.
func TestListAndCall(t *testing.T) {
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			w := newWorld(t, version)
			c := w.mint(t, alice, []string{"read"}, "corpus/q1-report.md", "corpus/q2-report.md")
			cs := w.connect(t, aliceKey, version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			ctx := context.Background()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if got := toolNames(list.Tools); !slices.Equal(got, []string{"read_file", "write_file"}) {
				t.Errorf("tools listed %v: admin_reset is not fronted and must not be listed", got)
			}
			for _, tool := range list.Tools {
				if strings.Contains(tool.Description, "corpus/") {
					t.Errorf("tools/list, under no capability, named a real id: %q", tool.Description)
				}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": c.handles[0]},
				Meta: withCapability(c.id)})
			if err != nil || res.IsError {
				t.Fatalf("tools/call: %v %+v", err, res)
			}
			text := res.Content[0].(*sdk.TextContent).Text
			if want := c.handles[0] + ": Q1 revenue grew 12%."; text != want {
				t.Errorf("content %q, want %q", text, want)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(structured), c.handles[0]) || strings.Contains(string(structured), "corpus/") {
				t.Errorf("structuredContent %s: a real id reached the caller", structured)
			}
			if w.upstream.args[0] != "corpus/q1-report.md" {
				t.Errorf("the server was asked for %q, want the real id", w.upstream.args[0])
			}
			for _, h := range w.upstream.seen() {
				if h.Get("Authorization") != "" || h.Get("A2A-Capability") != "" {
					t.Fatalf("the caller's credential reached the server: %v", h)
				}
			}
			w.callHeaders.mu.Lock()
			defer w.callHeaders.mu.Unlock()
			if len(w.callHeaders.hs) == 0 {
				t.Fatal("no answer to the tool call was seen")
			}
			for _, h := range w.callHeaders.hs {
				if h.Get("X-File-Id") != "" || h.Get("Link") != "" {
					t.Errorf("the server's answer headers reached the caller of a tool call: %v", h)
				}
			}
		})
	}
}

// TestListWithCapability: a tools/list presenting a capability lists only
// the tools whose operation it covers.
func TestListWithCapability(t *testing.T) {
	w := newWorld(t, "")
	c := w.mint(t, alice, []string{"read"}, "corpus/q1-report.md")
	cs := w.connect(t, aliceKey, "")
	list, err := cs.ListTools(context.Background(), &sdk.ListToolsParams{Meta: withCapability(c.id)})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(list.Tools); !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("tools listed %v, want only read_file", got)
	}
}

// TestRefusals: every refusal is the stable code and reason the client
// sees, and the server sees nothing of the call.
func TestRefusals(t *testing.T) {
	w := newWorld(t, "")
	mine, bobs, revoked := w.refusalCapabilities(t)
	read := func(path string, meta sdk.Meta) *sdk.CallToolParams {
		return &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": path}, Meta: meta}
	}
	tests := []struct {
		name       string
		params     *sdk.CallToolParams
		wantCode   int64
		wantReason string
		// wantSaid are words the message must hold.
		wantSaid []string
	}{
		{"no capability", read(mine.handles[0], nil), -32040, "capability_required",
			[]string{`params._meta["dev.capgate/capability"]`, "A2A-Capability header"}},
		{"wrong operation", &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": mine.handles[0], "content": "x"},
			Meta: withCapability(mine.id)}, -32044, "operation_not_permitted", nil},
		{"foreign handle", read(bobs.handles[0], withCapability(mine.id)), -32045, "resource_not_permitted", nil},
		{"real id instead of a handle", read("corpus/q1-report.md", withCapability(mine.id)), -32045, "resource_not_permitted", nil},
		{"real id elsewhere in the arguments", &sdk.CallToolParams{Name: "read_file",
			Arguments: map[string]any{"path": mine.handles[0], "note": "corpus/secret.md"}, Meta: withCapability(mine.id)}, -32045, "resource_not_permitted", nil},
		{"no resource argument", &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{}, Meta: withCapability(mine.id)}, -32045, "resource_not_permitted", nil},
		{"revoked", read(revoked.handles[0], withCapability(revoked.id)), -32043, "capability_revoked", nil},
		{"wrong holder", read(bobs.handles[0], withCapability(bobs.id)), -32046, "holder_mismatch", nil},
		{"unknown capability", read(mine.handles[0], withCapability("cap_nope")), -32041, "capability_invalid", nil},
		{"tool not fronted", &sdk.CallToolParams{Name: "admin_reset", Meta: withCapability(mine.id)}, -32602, "invalid_params", nil},
	}
	cs := w.connect(t, aliceKey, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := w.upstream.calls.Load()
			_, err := cs.CallTool(context.Background(), tt.params)
			var we *sdkrpc.Error
			if !errors.As(err, &we) {
				t.Fatalf("tools/call: %v, want a JSON-RPC error", err)
			}
			var data struct {
				Reason string `json:"reason"`
			}
			_ = json.Unmarshal(we.Data, &data)
			if we.Code != tt.wantCode || data.Reason != tt.wantReason {
				t.Errorf("refused %d %s (%s), want %d %s", we.Code, data.Reason, we.Message, tt.wantCode, tt.wantReason)
			}
			for _, said := range tt.wantSaid {
				if !strings.Contains(we.Message, said) {
					t.Errorf("message %q does not name %s", we.Message, said)
				}
			}
			if got := w.upstream.calls.Load(); got != before {
				t.Errorf("the server saw %d tool calls of a refused call", got-before)
			}
		})
	}
}

// TestCaseVariantArgument: an argument spelled as a case variant of a
// resource argument beside it is refused whole, before it is decided;
// the transport answers 400, and the server sees nothing.
func TestCaseVariantArgument(t *testing.T) {
	w := newWorld(t, "")
	mine := w.mint(t, alice, []string{"read"}, "corpus/q1-report.md")
	cs := w.connect(t, aliceKey, "")
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file",
		Arguments: map[string]any{"Path": "corpus/secret.md", "path": mine.handles[0]}, Meta: withCapability(mine.id)})
	if err == nil || !strings.Contains(err.Error(), "Bad Request") {
		t.Fatalf("tools/call: %v, want the body refused", err)
	}
	if got := w.upstream.calls.Load(); got != 0 {
		t.Errorf("the server saw %d tool calls", got)
	}
}

func toolNames(tools []*sdk.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

// TestListWithoutCapability: a tools/list that presents no capability
// lists the fronted tools the policy could ever grant the caller: alice
// (finance) may be granted read, and write with approval; bob nothing.
func TestListWithoutCapability(t *testing.T) {
	w := newWorld(t, "")
	tests := []struct {
		key  string
		want []string
	}{
		{aliceKey, []string{"read_file", "write_file"}},
		{bobKey, nil},
	}
	for _, tt := range tests {
		list, err := w.connect(t, tt.key, "").ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := toolNames(list.Tools); !slices.Equal(got, tt.want) {
			t.Errorf("%s: tools listed %v, want %v", tt.key, got, tt.want)
		}
	}
}

// refusalCapabilities mints the capabilities the refusal tests present:
// alice's over Q1, bob's over Q2, and alice's over Q1, revoked.
func (w *world) refusalCapabilities(t *testing.T) (mine, bobs, revoked capability) {
	t.Helper()
	mine = w.mint(t, alice, []string{"read"}, "corpus/q1-report.md")
	bobs = w.mint(t, bob, []string{"read"}, "corpus/q2-report.md")
	revoked = w.mint(t, alice, []string{"read"}, "corpus/q1-report.md")
	if err := w.revoked.Revoke(context.Background(), revoked.claims.RevocationID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	return mine, bobs, revoked
}
