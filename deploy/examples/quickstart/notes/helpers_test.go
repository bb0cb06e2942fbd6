package notes

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/capgate/capgate/gateway/proxy"
)

// testNow is the agent's clock in tests.
var testNow = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

// served is a notes agent on an httptest server, with a stock a2a-go
// client built from the card the agent serves.
type served struct {
	agent  *Agent
	url    string
	client *a2aclient.Client
}

// serve starts the agent with opts (Logger and Now filled in) and extra
// a2asrv options behind a stand-in for the gateway that vouches for a
// capability with both operations, and builds a client from its served
// card.
func serve(t *testing.T, opts Options, extra ...a2asrv.RequestHandlerOption) *served {
	t.Helper()
	return serveVouched(t, opts, OperationRead+","+OperationWrite, extra...)
}

// serveVouched is serve with the operations the stand-in vouches for:
// comma-separated, as A2A-Capability-Operations carries them; "" vouches
// for no capability at all.
func serveVouched(t *testing.T, opts Options, ops string, extra ...a2asrv.RequestHandlerOption) *served {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	opts.BaseURL = base + "/"
	opts.Logger = slog.New(slog.DiscardHandler)
	opts.Now = func() time.Time { return testNow }
	a, err := newAgent(opts, extra...)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ops != "" {
			r.Header.Set(proxy.HeaderCapabilityID, "cap_test")
			r.Header.Set(proxy.HeaderCapabilityOperations, ops)
		}
		a.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, base)
	if err != nil {
		t.Fatalf("resolving the served card: %v", err)
	}
	c, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return &served{agent: a, url: base, client: c}
}

func textMessage(text string) *a2a.MessageSendParams {
	return &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})}
}

func dataMessage(data map[string]any) *a2a.MessageSendParams {
	return &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.DataPart{Data: data})}
}

// send sends p and wants a Task back.
func (s *served) send(t *testing.T, p *a2a.MessageSendParams) *a2a.Task {
	t.Helper()
	res, err := s.client.SendMessage(context.Background(), p)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("send answered %T, want *a2a.Task", res)
	}
	return task
}

// agentOutput is what the agent itself wrote into a task, as JSON: its
// artifacts, status and metadata. The history is left out: it holds the
// caller's own messages as the agent received them.
func agentOutput(t *testing.T, task *a2a.Task) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"artifacts": task.Artifacts, "status": task.Status, "metadata": task.Metadata})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// texts returns the text parts of parts.
func texts(parts a2a.ContentParts) []string {
	var out []string
	for _, p := range parts {
		if tp, ok := p.(a2a.TextPart); ok {
			out = append(out, tp.Text)
		}
	}
	return out
}

// statusText is the text of a task's status message.
func statusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	s := ""
	for _, t := range texts(task.Status.Message.Parts) {
		s += t
	}
	return s
}
