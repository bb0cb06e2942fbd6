package mcpfront

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// resourcesListCall is a resources/list presented under a capability
// over the one handle rh_a.
func resourcesListCall() *call {
	return &call{server: &server{}, req: jsonrpc.Request{Method: mcp.MethodResourcesList},
		scope: &enforce.Scope{Claims: &captoken.Claims{Handles: []string{"rh_a"}}}}
}

// TestListResourcesFailsClosed: a resources/list answer keeps only the
// capability's resources under every spelling of its list, and an answer
// the filter cannot read is refused, never passed unfiltered.
func TestListResourcesFailsClosed(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"filtered", `{"result":{"resources":[{"uri":"rh_a"},{"uri":"[resource]"},{"uri":"other"}]}}`, `{"result":{"resources":[{"uri":"rh_a"}]}}`, nil},
		{"filtered under a folded name", `{"result":{"Resources":[{"uri":"other"}]}}`, `{"result":{"Resources":[]}}`, nil},
		{"a result that is not a listing", `{"result":[{"uri":"other"}]}`, "", answer.ErrNotJSON},
		{"an error passes", `{"error":{"code":-32603,"message":"x"}}`, `{"error":{"code":-32603,"message":"x"}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&Front{}).listResources(context.Background(), resourcesListCall(), json.RawMessage(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("listResources(%s) = %s, %v; want %v", tt.in, got, err, tt.wantErr)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("listResources(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzListResources: whatever the server answers, a resources/list the
// filter passes lists, under any spelling of resources, only the
// capability's handle.
func FuzzListResources(f *testing.F) {
	f.Add(`{"result":{"resources":[{"uri":"rh_a"},{"uri":"corpus/x"}]}}`)
	f.Add(`{"result":{"RESOURCES":[{"uri":"corpus/x","URI":"rh_a"}]}}`)
	f.Add(`{"result":{"resources":{"uri":"corpus/x"}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := (&Front{}).listResources(context.Background(), resourcesListCall(), json.RawMessage(in))
		if err != nil || !json.Valid(got) {
			return
		}
		var env struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if json.Unmarshal(got, &env) != nil {
			return
		}
		for k, v := range env.Result {
			if !strings.EqualFold(k, "resources") {
				continue
			}
			var list []struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(v, &list)
			for _, r := range list {
				if r.URI != "rh_a" {
					t.Fatalf("listed %q from %s: %s", r.URI, in, got)
				}
			}
		}
	})
}
