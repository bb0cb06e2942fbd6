package notes

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

// TestEchoIDs: with EchoIDs the storage ids show in every place an answer
// can carry them; without it, in none of them, sent or streamed.
func TestEchoIDs(t *testing.T) {
	messages := map[string]*a2a.MessageSendParams{
		"read":  dataMessage(map[string]any{"resourceIds": []any{"notes/alice-groceries", "notes/team-standup"}}),
		"write": textMessage("append notes/alice-groceries: butter"),
	}
	for _, echo := range []bool{false, true} {
		for name, msg := range messages {
			t.Run(name+map[bool]string{false: " plain", true: " echoing"}[echo], func(t *testing.T) {
				s := serve(t, Options{EchoIDs: echo})
				task := s.send(t, msg)
				if task.Status.State != a2a.TaskStateCompleted {
					t.Fatalf("state %q: %s", task.Status.State, statusText(task))
				}
				places := echoPlaces(t, task)
				for place, text := range places {
					if got := strings.Contains(text, "notes/alice-groceries"); got != echo {
						t.Errorf("%s holds the storage id: %v, want %v (%s)", place, got, echo, text)
					}
				}
				streamed := streamOutput(t, s, msg)
				if got := strings.Contains(streamed, "notes/alice-groceries"); got != echo {
					t.Errorf("the stream holds the storage id: %v, want %v (%s)", got, echo, streamed)
				}
			})
		}
	}
}

// echoPlaces is each place of a task where the agent may write an id, as
// JSON.
func echoPlaces(t *testing.T, task *a2a.Task) map[string]string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := task.Artifacts[0]
	places := map[string]string{
		"task metadata":     enc(task.Metadata),
		"artifact name":     a.Name,
		"artifact metadata": enc(a.Metadata),
		"artifact text":     enc(a.Parts[0]),
		"artifact data":     enc(a.Parts[1]),
		"status text":       enc(task.Status.Message.Parts[0]),
		"status message":    enc(task.Status.Message),
	}
	return places
}

// streamOutput streams msg and returns every event the agent wrote, as
// JSON, without the history of the task event (the caller's own words).
func streamOutput(t *testing.T, s *served, msg *a2a.MessageSendParams) string {
	t.Helper()
	fresh := *msg
	m := *msg.Message
	m.ID = a2a.NewMessageID()
	fresh.Message = &m
	var sb strings.Builder
	for ev, err := range s.client.SendStreamingMessage(context.Background(), &fresh) {
		if err != nil {
			t.Fatal(err)
		}
		if task, ok := ev.(*a2a.Task); ok {
			cp := *task
			cp.History = nil
			ev = &cp
		}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(b)
	}
	return sb.String()
}
