package files_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/deploy/examples/quickstart/files"
)

// TestTools calls each tool with the official Go SDK client, over
// Streamable HTTP, in both revisions the server speaks.
func TestTools(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := files.New(files.Options{})
			srv := httptest.NewServer(s.Handler())
			defer srv.Close()
			c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1},
				&sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tests := []struct {
				name     string
				tool     string
				args     map[string]any
				want     string
				wantFail bool
			}{
				{"read", files.ToolRead, map[string]any{"path": "files/finance/q1-2026.md"}, `{"content":"Q1 2026: revenue 4.1M EUR, up 12% on Q4; margin 31%.","path":"files/finance/q1-2026.md"}`, false},
				{"read a missing file", files.ToolRead, map[string]any{"path": "files/nope"}, "", true},
				{"search", files.ToolSearch, map[string]any{"query": "REVENUE"}, `{"matches":["files/finance/forecast-2027.md","files/finance/q1-2026.md","files/finance/q2-2026.md"]}`, false},
				{"write", files.ToolWrite, map[string]any{"path": "files/finance/q1-2026.md", "content": "x"}, `{"content":"x","path":"files/finance/q1-2026.md"}`, false},
			}
			for _, tt := range tests {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if res.IsError != tt.wantFail {
					t.Errorf("%s: isError %v, want %v", tt.name, res.IsError, tt.wantFail)
				}
				if tt.wantFail {
					continue
				}
				got, _ := json.Marshal(res.StructuredContent)
				if string(got) != tt.want {
					t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
				}
			}
			if got, _ := s.Text("files/finance/q1-2026.md"); got != "x" {
				t.Errorf("after write_file the file holds %q", got)
			}
			if got := len(s.Calls()); got != len(tests) {
				t.Errorf("%d calls recorded, want %d", got, len(tests))
			}
		})
	}
}
