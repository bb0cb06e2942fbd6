package interop_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// ask sends text to the agent at url as alice, and prints the task's
// state, or capgate's code and reason when the gateway refuses.
func ask(ctx context.Context, url, text string) error {
	resolver := &agentcard.Resolver{CardParser: v1CardParser} // a2a-go/v2 issue #430
	card, err := resolver.Resolve(ctx, url)
	if err != nil {
		return err
	}
	creds := a2aclient.NewInMemoryCredentialsStore()
	creds.Set("alice", "bearer", "alice-dev-key")
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithCallInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
	if err != nil {
		return err
	}
	defer client.Destroy()
	res, err := client.SendMessage(a2aclient.AttachSessionID(ctx, "alice"), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
	})
	var refusal *a2a.Error
	if errors.As(err, &refusal) {
		meta, _ := refusal.ErrorInfo().Value["metadata"].(map[string]string)
		fmt.Println("refused:", meta["code"], meta["reason"])
		return nil
	}
	if err != nil {
		return err
	}
	if task, ok := res.(*a2a.Task); ok {
		fmt.Println(task.Status.State)
	}
	return nil
}

// Example_goV1Client runs README's a2a-go/v2 example against a quickstart
// world: a message to the documents agent, and one to the gated notes
// agent without a capability.
func Example_goV1Client() {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	for _, call := range [][2]string{{"documents", "What can you do?"}, {"notes", "read my notes"}} {
		if err := ask(ctx, w.URL+"/a2a/"+call[0]+"/", call[1]); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// TASK_STATE_COMPLETED
	// refused: -32040 capability_required
}

// TestReadmeGoV1Client: README "Calling through the gateway with a stock
// SDK" shows ask as it is here, where Example_goV1Client runs it.
func TestReadmeGoV1Client(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?s)\n(// ask sends.*?\n}\n)`).FindSubmatch(src)
	if fn == nil {
		t.Fatal("ask not found in readme_example_test.go")
	}
	if !strings.Contains(string(readme), "```go\n"+string(fn[1])) {
		t.Errorf("README does not show ask as readme_example_test.go has it:\n%s", fn[1])
	}
}
