package interop_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// mcpRefusals are the refusals every client must surface, with the stable
// code and reason, while the server sees nothing.
var mcpRefusals = []struct {
	name       string
	wantCode   int64
	wantReason string
}{
	{"no capability", -32040, "capability_required"},
	{"write_file under a read capability", -32044, "operation_not_permitted"},
	{"a file outside the capability", -32045, "resource_not_permitted"},
}

// TestGoSDKClientMCP drives the official Go SDK client through the
// gateway to the quickstart files server, in both revisions the front
// speaks: initialize, tools/list, tools/call, and the refusals surfaced
// to the application as JSON-RPC errors with code and reason.
func TestGoSDKClientMCP(t *testing.T) {
	w := startMCPWorld(t)
	mine := w.request(t, quickstart.AliceKey, "report")
	other := w.request(t, quickstart.AliceKey, "forecast")
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cs := w.connectGo(t, quickstart.AliceKey, version)
			ctx := context.Background()
			if got := cs.InitializeResult(); got.ServerInfo.Name != "files" || got.ProtocolVersion != version {
				t.Errorf("initialize: server %q, version %q", got.ServerInfo.Name, got.ProtocolVersion)
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if got := sdkToolNames(list.Tools); !slices.Equal(got, []string{"read_file", "search_files"}) {
				t.Errorf("tools/list: %v", got)
			}
			scoped, err := cs.ListTools(ctx, &sdk.ListToolsParams{Meta: presenting(mine.token)})
			if err != nil {
				t.Fatalf("tools/list with a capability: %v", err)
			}
			if got := sdkToolNames(scoped.Tools); !slices.Equal(got, []string{"read_file", "search_files"}) {
				t.Errorf("tools/list with a read capability: %v", got)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": mine.handles[0]}, Meta: presenting(mine.token)})
			if err != nil || res.IsError {
				t.Fatalf("read_file: %v %+v", err, res)
			}
			checkMapped(t, "read_file", res, mine.handles[0], "Q1 2026: revenue 4.1M EUR")
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_files", Arguments: map[string]any{"query": "revenue"}, Meta: presenting(mine.token)})
			if err != nil || res.IsError {
				t.Fatalf("search_files: %v %+v", err, res)
			}
			checkMapped(t, "search_files", res, mine.handles[1], "3 files match")
			calls := []*sdk.CallToolParams{
				{Name: "read_file", Arguments: map[string]any{"path": mine.handles[0]}},
				{Name: "write_file", Arguments: map[string]any{"path": mine.handles[0], "content": "x"}, Meta: presenting(mine.token)},
				{Name: "read_file", Arguments: map[string]any{"path": other.handles[0]}, Meta: presenting(mine.token)},
			}
			for i, tt := range mcpRefusals {
				before := len(w.Files.Calls())
				_, err := cs.CallTool(ctx, calls[i])
				if code, reason := rpcError(t, err); code != tt.wantCode || reason != tt.wantReason {
					t.Errorf("%s: refused %d %s, want %d %s", tt.name, code, reason, tt.wantCode, tt.wantReason)
				}
				if got := len(w.Files.Calls()); got != before {
					t.Errorf("%s: the server saw the refused call", tt.name)
				}
			}
		})
	}
}

// checkMapped fails unless a tool's answer holds want and the caller's
// handle, and no storage id anywhere.
func checkMapped(t *testing.T, tool string, res *sdk.CallToolResult, handle, want string) {
	t.Helper()
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(raw); !strings.Contains(s, want) || !strings.Contains(s, handle) || strings.Contains(s, "files/") {
		t.Errorf("%s answered %s: want %q and the handle %s, and no storage id", tool, s, want, handle)
	}
}

func sdkToolNames(tools []*sdk.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

// dataReason is data.reason of a JSON-RPC error's data.
func dataReason(data json.RawMessage) string {
	var d struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(data, &d) // no reason: ""
	return d.Reason
}

// mcpStep is a step of mcpclient.mjs: its result or its error.
type mcpStep struct {
	Error *stepErr `json:"error"`
}

type toolOut struct {
	mcpStep
	IsError    bool            `json:"isError"`
	Text       []string        `json:"text"`
	Structured json.RawMessage `json:"structured"`
}

type mcpClientOut struct {
	Unauthenticated mcpStep
	Connect         struct {
		mcpStep
		Server          string `json:"server"`
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"connect"`
	List, ListScoped             json.RawMessage
	Read, Search                 toolOut
	NoCapability, Write, Foreign mcpStep
}

// TestTSSDKClientMCP drives the official TypeScript SDK client (Client
// with StreamableHTTPClientTransport, in js/mcpclient.mjs) through the
// gateway to the quickstart files server: the 401 without credentials,
// initialize, tools/list, tools/call, and the refusals surfaced to the
// application as McpError with code and data.reason, while the server
// sees nothing of them.
func TestTSSDKClientMCP(t *testing.T) {
	kit := mcpKit(t)
	w := startMCPWorld(t)
	mine := w.request(t, quickstart.AliceKey, "report")
	other := w.request(t, quickstart.AliceKey, "forecast")
	var out mcpClientOut
	runScript(t, kit, &out, map[string]any{"url": w.URL + "/mcp/files", "bearer": quickstart.AliceKey,
		"token": mine.token, "mine": mine.handles[0], "foreign": other.handles[0]}, "mcpclient.mjs")
	if e := out.Unauthenticated.Error; e == nil || e.Code == nil || *e.Code != 401 {
		t.Errorf("connecting without credentials: %+v, want the SDK's HTTP error 401", e)
	}
	if out.Connect.Error != nil || out.Connect.Server != "files" {
		t.Fatalf("initialize through the gateway: %+v", out.Connect)
	}
	t.Logf("negotiated %s", out.Connect.ProtocolVersion)
	for _, l := range []struct {
		name string
		raw  json.RawMessage
		want []string
	}{{"tools/list", out.List, []string{"read_file", "search_files"}},
		{"tools/list with a read capability", out.ListScoped, []string{"read_file", "search_files"}}} {
		var got []string
		if err := json.Unmarshal(l.raw, &got); err != nil || !slices.Equal(got, l.want) {
			t.Errorf("%s: %s, want %v", l.name, l.raw, l.want)
		}
	}
	for _, c := range []struct {
		name         string
		out          toolOut
		handle, want string
	}{{"read_file", out.Read, mine.handles[0], "Q1 2026: revenue 4.1M EUR"}, {"search_files", out.Search, mine.handles[1], "3 files match"}} {
		raw, _ := json.Marshal(c.out)
		if s := string(raw); c.out.Error != nil || c.out.IsError || !strings.Contains(s, c.want) || !strings.Contains(s, c.handle) || strings.Contains(s, "files/") {
			t.Errorf("%s answered %s: want %q and the handle %s, and no storage id", c.name, s, c.want, c.handle)
		}
	}
	for i, got := range []mcpStep{out.NoCapability, out.Write, out.Foreign} {
		tt := mcpRefusals[i]
		if got.Error == nil || got.Error.Code == nil || int64(*got.Error.Code) != tt.wantCode || got.Error.Data["reason"] != tt.wantReason {
			t.Errorf("%s: %+v, want McpError %d with data.reason %s", tt.name, got.Error, tt.wantCode, tt.wantReason)
		}
	}
	for _, c := range w.Files.Calls() {
		if c.Tool == "write_file" || c.Path == "files/finance/forecast-2027.md" || c.Path == "" {
			t.Errorf("a refused call reached the server: %+v", c)
		}
	}
	if got := len(w.Files.Calls()); got != 2 {
		t.Errorf("the server saw %d tool calls, want the 2 allowed", got)
	}
}
