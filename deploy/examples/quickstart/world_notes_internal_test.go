package quickstart

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

// TestStartNotes starts the notes agent as the world does, reaches it with
// a stock client, and finds the call in its recorder.
func TestStartNotes(t *testing.T) {
	w := &World{cancel: func() {}}
	t.Cleanup(func() { _ = w.Close() })
	n, err := w.startNotes(Options{Logger: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, strings.TrimSuffix(n.URL, "/"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "read notes/team-standup"})})
	if err != nil {
		t.Fatal(err)
	}
	if task, ok := res.(*a2a.Task); !ok || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("answer %#v", res)
	}
	var posts []string
	for _, r := range n.Recorder.Requests() {
		if r.Method == http.MethodPost {
			posts = append(posts, r.RPCMethod)
		}
	}
	if strings.Join(posts, " ") != "message/send" {
		t.Errorf("recorded calls %v, want one message/send", posts)
	}
}
