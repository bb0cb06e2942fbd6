package notes_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
)

// A stock a2a-go client reads a note and tries to append to it, under a
// capability the gateway vouches for with the read operation only: the
// agent refuses the append, and the note is unchanged.
func Example() {
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	agent, err := notes.New(notes.Options{BaseURL: base + "/", Logger: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the gateway sets on a call scoped to a read-only capability.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("A2A-Capability-Id", "cap_1")
		r.Header.Set("A2A-Capability-Operations", "read")
		agent.ServeHTTP(w, r)
	})
	srv.Start()
	defer srv.Close()

	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, base)
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, text := range []string{"read notes/alice-groceries", "append notes/alice-groceries: butter"} {
		res, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})})
		if err != nil {
			fmt.Println(err)
			return
		}
		task := res.(*a2a.Task)
		if task.Status.State != a2a.TaskStateCompleted {
			fmt.Printf("%s: %q\n", task.Status.State, task.Status.Message.Parts[0].(a2a.TextPart).Text)
			continue
		}
		fmt.Printf("%s: %q\n", task.Status.State, task.Artifacts[0].Parts[0].(a2a.TextPart).Text)
	}
	n, _ := agent.Note("notes/alice-groceries")
	fmt.Printf("note: %q\n", n.Text)
	// Output:
	// completed: "milk\neggs\nbread"
	// failed: "Not permitted: notes.write needs the write operation."
	// note: "milk\neggs\nbread"
}
