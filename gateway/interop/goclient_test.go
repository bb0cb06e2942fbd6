package interop_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// TestGoClientV03 drives a stock a2a-go client, with default options,
// through the gateway to the v0.3-only a2a-go agent: card resolution,
// message/send, message/stream and tasks/get. The credential is attached
// by the SDK's own AuthInterceptor from the card's security declarations.
func TestGoClientV03(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	card, err := agentcard.DefaultResolver.Resolve(ctx, w.base(v03Agent))
	if err != nil {
		t.Fatalf("card resolution: %v", err)
	}
	if card.URL != w.URL+"/a2a/"+v03Agent || card.PreferredTransport != a2a.TransportProtocolJSONRPC {
		t.Fatalf("card points at %q (%s), want the gateway over JSON-RPC", card.URL, card.PreferredTransport)
	}
	creds := a2aclient.NewInMemoryCredentialsStore()
	client, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Destroy()
	for _, req := range card.Security {
		for scheme := range req {
			creds.Set("alice", scheme, quickstart.AliceKey)
		}
	}
	ctx = a2aclient.WithSessionID(ctx, "alice")

	res, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hello"})})
	if err != nil {
		t.Fatalf("message/send: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("message/send: want a completed task, got %#v", res)
	}
	checkGoEcho(t, task.Artifacts, "hello")

	var kinds []string
	for ev, err := range client.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "stream me"})}) {
		if err != nil {
			t.Fatalf("message/stream: %v", err)
		}
		kinds = append(kinds, goEventKind(ev))
	}
	if want := "task status artifact status"; strings.Join(kinds, " ") != want {
		t.Errorf("message/stream events %q, want %q", strings.Join(kinds, " "), want)
	}

	got, err := client.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
	if err != nil {
		t.Fatalf("tasks/get: %v", err)
	}
	if got.ID != task.ID || got.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("tasks/get: got %s in %s, want %s completed", got.ID, got.Status.State, task.ID)
	}
	checkGoEcho(t, got.Artifacts, "hello")
}

func goEventKind(ev a2a.Event) string {
	switch ev.(type) {
	case *a2a.Task:
		return "task"
	case *a2a.TaskStatusUpdateEvent:
		return "status"
	case *a2a.TaskArtifactUpdateEvent:
		return "artifact"
	case *a2a.Message:
		return "message"
	}
	return "unknown"
}

// checkGoEcho asserts one artifact whose data part echoes text.
func checkGoEcho(t *testing.T, arts []*a2a.Artifact, text string) {
	t.Helper()
	if len(arts) != 1 || len(arts[0].Parts) != 1 {
		t.Fatalf("want one artifact with one part, got %#v", arts)
	}
	dp, ok := arts[0].Parts[0].(a2a.DataPart)
	if !ok || dp.Data["text"] != text {
		t.Errorf("artifact part %#v, want the agent's echo of %q", arts[0].Parts[0], text)
	}
}
