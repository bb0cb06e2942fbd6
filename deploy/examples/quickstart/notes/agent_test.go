package notes

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// TestSendAnswersWithACompletedTask sends each skill through the stock
// client and checks the task, its artifact and its status message.
func TestSendAnswersWithACompletedTask(t *testing.T) {
	tests := []struct {
		name      string
		params    *a2a.MessageSendParams
		wantTexts []string
		wantNote  string
	}{
		{"read by text", textMessage("read notes/alice-groceries"), []string{"milk\neggs\nbread"}, "milk\neggs\nbread"},
		{"bare ids read", textMessage("notes/alice-groceries notes/team-standup"),
			[]string{"milk\neggs\nbread", "ship the notes agent\nreview the gateway config"}, "milk\neggs\nbread"},
		{"read by data part", dataMessage(map[string]any{"skill": SkillRead, "resourceId": "notes/bob-ideas"}),
			[]string{"a bike shed with a green roof\nweekly demo on Fridays"}, "milk\neggs\nbread"},
		{"append by text", textMessage("append notes/alice-groceries: butter"), []string{"milk\neggs\nbread\nbutter"}, "milk\neggs\nbread\nbutter"},
		{"write by data part", dataMessage(map[string]any{"skill": SkillWrite, "resourceId": "notes/alice-groceries", "text": "jam"}),
			[]string{"milk\neggs\nbread\njam"}, "milk\neggs\nbread\njam"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, Options{})
			task := s.send(t, tt.params)
			if task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("state %q (%s), want completed", task.Status.State, statusText(task))
			}
			var got []string
			for _, a := range task.Artifacts {
				got = append(got, texts(a.Parts)...)
			}
			if strings.Join(got, "|") != strings.Join(tt.wantTexts, "|") {
				t.Errorf("artifact texts %q, want %q", got, tt.wantTexts)
			}
			if statusText(task) == "" || task.Status.Timestamp == nil || !task.Status.Timestamp.Equal(testNow) {
				t.Errorf("status %+v: want a message stamped by the agent's clock", task.Status)
			}
			if n, _ := s.agent.Note("notes/alice-groceries"); n.Text != tt.wantNote {
				t.Errorf("stored note %q, want %q", n.Text, tt.wantNote)
			}
		})
	}
}

// TestSendFailures answers what cannot be done with a failed task whose
// status says why, and changes nothing.
func TestSendFailures(t *testing.T) {
	tests := []struct {
		name   string
		params *a2a.MessageSendParams
		want   string
	}{
		{"unknown note", textMessage("read notes/nobody"), "No such note."},
		{"append to an unknown note", textMessage("append notes/nobody: x"), "No such note."},
		{"gibberish", textMessage("hello there"), ErrBadRequest.Error()},
		{"append without text", textMessage("append notes/alice-groceries"), ErrBadRequest.Error()},
		{"unknown data member", dataMessage(map[string]any{"resourceId": "notes/alice-groceries", "owner": "bob"}), ErrBadRequest.Error()},
		{"unknown skill", dataMessage(map[string]any{"skill": "notes.delete", "resourceId": "notes/alice-groceries"}), ErrBadRequest.Error()},
		{"malformed id", dataMessage(map[string]any{"resourceId": "../etc/passwd"}), ErrBadRequest.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, Options{})
			task := s.send(t, tt.params)
			if task.Status.State != a2a.TaskStateFailed {
				t.Fatalf("state %q, want failed", task.Status.State)
			}
			if got := statusText(task); !strings.HasPrefix(got, tt.want) {
				t.Errorf("status %q, want it to start with %q", got, tt.want)
			}
			if len(task.Artifacts) != 0 {
				t.Errorf("a failed task carries %d artifacts", len(task.Artifacts))
			}
			if out := agentOutput(t, task); strings.Contains(out, "notes/") {
				t.Errorf("a failure echoes a note id: %s", out)
			}
			if n, _ := s.agent.Note("notes/alice-groceries"); n.Text != "milk\neggs\nbread" {
				t.Errorf("a failed message changed a note: %q", n.Text)
			}
		})
	}
}

// TestGetTask reads a finished task back with tasks/get.
func TestGetTask(t *testing.T) {
	s := serve(t, Options{})
	sent := s.send(t, textMessage("read notes/team-standup"))
	got, err := s.client.GetTask(context.Background(), &a2a.TaskQueryParams{ID: sent.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2a.TaskStateCompleted || len(got.Artifacts) != 1 || agentOutput(t, got) != agentOutput(t, sent) {
		t.Errorf("tasks/get answered %s, want the task the send answered: %s", agentOutput(t, got), agentOutput(t, sent))
	}
	_, err = s.client.GetTask(context.Background(), &a2a.TaskQueryParams{ID: "no-such-task"})
	if !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("tasks/get of an unknown task: err = %v, want ErrTaskNotFound", err)
	}
}

// TestStream follows one message/stream to its end: the task, working,
// one artifact, completed.
func TestStream(t *testing.T) {
	s := serve(t, Options{})
	var kinds []string
	var final *a2a.TaskStatusUpdateEvent
	for ev, err := range s.client.SendStreamingMessage(context.Background(), textMessage("read notes/bob-ideas")) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, eventKind(ev))
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Final {
			final = st
		}
	}
	if got := strings.Join(kinds, " "); got != "task working artifact completed" {
		t.Errorf("events: %s", got)
	}
	if final == nil || final.Status.Message == nil {
		t.Fatal("no final status with a message")
	}
}

func eventKind(ev a2a.Event) string {
	switch ev := ev.(type) {
	case *a2a.Task:
		return "task"
	case *a2a.TaskStatusUpdateEvent:
		return string(ev.Status.State)
	case *a2a.TaskArtifactUpdateEvent:
		return "artifact"
	case *a2a.Message:
		return "message"
	}
	return "?"
}

// TestCardAndRoutes serves the card and JSON-RPC only.
func TestCardAndRoutes(t *testing.T) {
	s := serve(t, Options{})
	card, err := s.client.GetAgentCard(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if card.Name != AgentName || !card.Capabilities.Streaming || len(card.Capabilities.Extensions) != 0 ||
		len(card.Skills) != 2 || card.Skills[0].ID != SkillRead || card.Skills[1].ID != SkillWrite {
		t.Errorf("card: %+v", card)
	}
	tests := []struct {
		method, path string
		wantStatus   int
	}{
		{http.MethodGet, "/.well-known/agent-card.json", http.StatusOK},
		{http.MethodGet, "/", http.StatusMethodNotAllowed},
		{http.MethodPost, "/.well-known/agent-card.json", http.StatusOK}, // JSON-RPC on any path: an empty body is a parse error
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, s.url+tt.path, strings.NewReader(""))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, resp.StatusCode, tt.wantStatus)
		}
	}
}

// TestOptionsValidate refuses options the agent cannot run with.
func TestOptionsValidate(t *testing.T) {
	good := func(mod func(*Options)) Options {
		o := Options{BaseURL: "http://127.0.0.1:9104/", Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return testNow }}
		mod(&o)
		return o
	}
	if _, err := New(good(func(*Options) {})); err != nil {
		t.Fatalf("good options: %v", err)
	}
	tests := []struct {
		name string
		opts Options
	}{
		{"no logger", good(func(o *Options) { o.Logger = nil })},
		{"no clock", good(func(o *Options) { o.Now = nil })},
		{"relative url", good(func(o *Options) { o.BaseURL = "/notes" })},
		{"url with a query", good(func(o *Options) { o.BaseURL += "?x=1" })},
		{"duplicate notes", good(func(o *Options) { o.Notes = []Note{{ID: "notes/a"}, {ID: "notes/a"}} })},
		{"bad note id", good(func(o *Options) { o.Notes = []Note{{ID: "Notes/A"}} })},
		{"note too long", good(func(o *Options) { o.Notes = []Note{{ID: "notes/a", Text: strings.Repeat("x", MaxNoteBytes+1)}} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.opts); !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("err = %v, want ErrInvalidOptions", err)
			}
		})
	}
}
