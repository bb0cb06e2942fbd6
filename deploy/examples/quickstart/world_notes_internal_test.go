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

	"github.com/capgate/capgate/gateway/proxy"
)

// gatewayHeaders stands in for the gateway on a direct call: it sets the
// capability context the gateway vouches for, which the agent requires.
type gatewayHeaders struct {
	a2aclient.PassthroughInterceptor
	ops string
}

func (g gatewayHeaders) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta[proxy.HeaderCapabilityID] = []string{"cap_test"}
	req.Meta[proxy.HeaderCapabilityOperations] = []string{g.ops}
	return ctx, nil
}

// TestStartNotes starts the notes agent as the world does, reaches it with
// a stock client (standing in for the gateway), and finds the call in its
// recorder.
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
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithInterceptors(gatewayHeaders{ops: "read"}))
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
