package mcpfront_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResources: through the gateway, resources/read names a resource by
// a handle of the capability and the server reads the real URI, the
// caller seeing its handle back; resources/list shows only the
// capability's resources, by handle. Every refusal leaves the server
// untouched.
func TestResources(t *testing.T) {
	w := newWorld(t, "")
	mine, bobs, revoked := w.refusalCapabilities(t)
	cs := w.connect(t, aliceKey, "")
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mine.handles[0], Meta: withCapability(mine.id)})
	if err != nil {
		t.Fatalf("resources/read: %v", err)
	}
	if got := res.Contents[0]; got.URI != mine.handles[0] || got.Text != mine.handles[0]+": Q1 revenue grew 12%." {
		t.Errorf("read %+v, want the content under the caller's handle", got)
	}
	list, err := cs.ListResources(ctx, &sdk.ListResourcesParams{Meta: withCapability(mine.id)})
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	if b, _ := json.Marshal(list); len(list.Resources) != 1 || list.Resources[0].URI != mine.handles[0] || strings.Contains(string(b), "corpus/") {
		t.Errorf("listed %s, want only the capability's resource, by handle", b)
	}

	read := func(uri string, meta sdk.Meta) error {
		_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri, Meta: meta})
		return err
	}
	tests := []struct {
		name     string
		call     func() error
		wantCode int64
	}{
		{"no capability", func() error { return read(mine.handles[0], nil) }, -32040},
		{"a foreign handle", func() error { return read(bobs.handles[0], withCapability(mine.id)) }, -32045},
		{"a real URI", func() error { return read("corpus/secret.md", withCapability(mine.id)) }, -32045},
		{"revoked", func() error { return read(revoked.handles[0], withCapability(revoked.id)) }, -32043},
		{"another's capability", func() error { return read(bobs.handles[0], withCapability(bobs.id)) }, -32046},
		{"listing without a capability", func() error { _, err := cs.ListResources(ctx, nil); return err }, -32040},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, seen := w.upstream.reads.Load(), len(w.upstream.seen())
			if got := codeOf(tt.call()); got != tt.wantCode {
				t.Errorf("refused %d, want %d", got, tt.wantCode)
			}
			if w.upstream.reads.Load() != before || len(w.upstream.seen()) != seen {
				t.Error("the server saw a refused call")
			}
		})
	}
}
