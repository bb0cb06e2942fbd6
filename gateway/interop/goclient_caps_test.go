package interop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	capagentcard "github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/client"
)

// goClientFor resolves agent's card through the gateway and returns a
// stock a2a-go client for it, authenticated as alice by the SDK's own
// AuthInterceptor.
func goClientFor(ctx context.Context, t *testing.T, w *world, agent string) (*a2aclient.Client, context.Context) {
	t.Helper()
	card, err := agentcard.DefaultResolver.Resolve(ctx, w.base(agent))
	if err != nil {
		t.Fatalf("card resolution: %v", err)
	}
	creds := a2aclient.NewInMemoryCredentialsStore()
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	for _, req := range card.Security {
		for scheme := range req {
			creds.Set("alice", scheme, quickstart.AliceKey)
		}
	}
	return c, a2aclient.WithSessionID(ctx, "alice")
}

// capMessage is a message whose metadata carries ext under the
// capability extension's URI, where a stock SDK can put it.
func capMessage(text string, ext map[string]any) *a2a.MessageSendParams {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})
	msg.Metadata = map[string]any{capagentcard.ExtensionURI: ext}
	return &a2a.MessageSendParams{Message: msg}
}

// TestGoClientCapabilities: a stock a2a-go client, which has no way to
// call the extension's own methods, still uses capabilities through
// message metadata: a gated message to the plain notes agent (refused
// without one, answered with one, storage ids never shown), and a
// delegation to the summarizer. The capabilities come from the gateway's
// Go client.
func TestGoClientCapabilities(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	request := func(agent string, p client.RequestParams) client.Capability {
		gc, err := client.New(w.URL, agent, client.Options{Credential: quickstart.AliceKey})
		if err != nil {
			t.Fatal(err)
		}
		caps, err := gc.Request(ctx, p)
		if err != nil || len(caps) == 0 {
			t.Fatalf("request at %s: %v", agent, err)
		}
		return caps[0]
	}

	notes, nctx := goClientFor(ctx, t, w, "notes")
	// The SDK reports the gateway's -32040 as an error of its own kind;
	// what matters is that the agent received nothing.
	if _, err := notes.SendMessage(nctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "read my notes"})}); err == nil {
		t.Fatal("a message without a capability was answered")
	}
	if n := w.Notes.Recorder.CountRPC("message/send"); n != 0 {
		t.Fatalf("the notes agent received %d message(s) without a capability", n)
	}
	nc := request("notes", client.RequestParams{Grants: []string{"notes:read"}, ResourceQuery: &client.ResourceQuery{Collection: "personal"}})
	handle := nc.ResourceHandles[0].Handle
	res, err := notes.SendMessage(nctx, capMessage("read "+handle, map[string]any{"capabilityId": nc.ID, "skill": "notes.read"}))
	if err != nil {
		t.Fatalf("a capable message: %v", err)
	}
	raw, _ := json.Marshal(res)
	if task, ok := res.(*a2a.Task); !ok || task.Status.State != a2a.TaskStateCompleted || !strings.Contains(string(raw), "milk") {
		t.Fatalf("want the completed task with the note, got %s", raw)
	}
	if strings.Contains(string(raw), "notes/") {
		t.Errorf("the stock client saw a storage id: %s", raw)
	}

	dc := request("documents", client.RequestParams{Grants: []string{"documents:read"}, Purpose: "Summarize quarterly reports",
		ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}}})
	sum, sctx := goClientFor(ctx, t, w, "summarizer")
	res, err = sum.SendMessage(sctx, capMessage("Summarize these", map[string]any{"capabilities": []string{dc.ID}}))
	if err != nil {
		t.Fatalf("delegation through message metadata: %v", err)
	}
	raw, _ = json.Marshal(res)
	if !strings.Contains(string(raw), "Q1 Financial Summary") {
		t.Errorf("the summarizer did not read the delegated documents: %s", raw)
	}
}
