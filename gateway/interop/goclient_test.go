package interop_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

// TestGoClientV03 drives a stock a2a-go client, with default options,
// through the gateway to the v0.3-only a2a-go agent, and to the v1.0-only
// a2a-go/v2 agent, which the gateway serves to v0.3 callers by
// translation: card resolution (a v0.3 url and preferredTransport, v0.3
// security schemes), message/send, message/stream and tasks/get. The
// credential is attached by the SDK's own AuthInterceptor from the card's
// security declarations. The v1.0 agent receives v1.0 calls.
func TestGoClientV03(t *testing.T) {
	w := startWorld(t, false)
	for _, agent := range []string{v03Agent, goV1Agent} {
		t.Run(agent, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			card, err := agentcard.DefaultResolver.Resolve(ctx, w.base(agent))
			if err != nil {
				t.Fatalf("card resolution: %v", err)
			}
			if card.URL != w.URL+"/a2a/"+agent || card.PreferredTransport != a2a.TransportProtocolJSONRPC || len(card.Security) == 0 {
				t.Fatalf("card points at %q (%s), security %v; want the gateway over JSON-RPC, with security", card.URL, card.PreferredTransport, card.Security)
			}
			client, ctx := goClientFor(ctx, t, w, agent)
			checkGoV03Calls(ctx, t, client)
		})
	}
	if want := []string{"SendMessage", "SendStreamingMessage", "GetTask"}; !slices.Equal(w.goV1.methods(), want) {
		t.Errorf("the a2a-go/v2 agent received %v, want %v", w.goV1.methods(), want)
	}
}

// checkGoV03Calls drives an a2a-go v0.3 client through message/send,
// message/stream and tasks/get to an echo agent: a completed task with
// the echo, the stream's events in order (a status update final only
// when completed), and the same task read back.
func checkGoV03Calls(ctx context.Context, t *testing.T, client *a2aclient.Client) {
	t.Helper()
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
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Final != (st.Status.State == a2a.TaskStateCompleted) {
			t.Errorf("status update %s has final %v", st.Status.State, st.Final)
		}
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
