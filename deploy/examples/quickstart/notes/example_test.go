package notes_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
)

// A stock a2a-go client reads a note and appends to it.
func Example() {
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	agent, err := notes.New(notes.Options{BaseURL: base + "/", Logger: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.Config.Handler = agent
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
		fmt.Printf("%s: %q\n", task.Status.State, task.Artifacts[0].Parts[0].(a2a.TextPart).Text)
	}
	// Output:
	// completed: "milk\neggs\nbread"
	// completed: "milk\neggs\nbread\nbutter"
}
