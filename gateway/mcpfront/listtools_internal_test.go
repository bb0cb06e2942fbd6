package mcpfront

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// TestListToolsFailsClosed: a tools/list answer is filtered under every
// spelling of its list, and an answer the filter cannot read is refused,
// never passed unfiltered.
func TestListToolsFailsClosed(t *testing.T) {
	f := &Front{}
	c := &call{server: &server{tools: map[string]tool{"read_file": {operation: "read"}}},
		req: jsonrpc.Request{Method: mcp.MethodToolsList}}
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"filtered", `{"result":{"tools":[{"name":"read_file"},{"name":"admin_reset"}]}}`, `{"result":{"tools":[{"name":"read_file"}]}}`, nil},
		{"filtered under a folded name", `{"result":{"Tools":[{"name":"admin_reset"}]}}`, `{"result":{"Tools":[]}}`, nil},
		{"a result that is not a listing", `{"result":[{"name":"admin_reset"}]}`, "", answer.ErrNotJSON},
		{"a null result", `{"result":null}`, "", answer.ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.listTools(context.Background(), c, json.RawMessage(tt.in))
			if !errors.Is(err, tt.wantErr) || err == nil && strings.Contains(string(got), "admin_reset") {
				t.Fatalf("listTools(%s) = %s, %v; want %s, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("listTools(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
