package notes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/capgate/capgate/gateway/client"
)

// executor turns each message into a task: submitted, working, one
// artifact per note touched, then completed or failed.
type executor struct {
	store *store
	now   func() time.Time
	echo  bool
	hold  <-chan struct{}
}

var _ a2asrv.AgentExecutor = (*executor)(nil)

// outcome is what one command did.
type outcome struct {
	state  a2a.TaskState
	notes  []Note
	status string
}

// Execute implements a2asrv.AgentExecutor.
func (e *executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if rc.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return fmt.Errorf("notes: write task: %w", err)
		}
	}
	if err := q.Write(ctx, e.statusEvent(rc, a2a.TaskStateWorking, nil)); err != nil {
		return fmt.Errorf("notes: write status: %w", err)
	}
	if e.hold != nil {
		select {
		case <-e.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	out := e.run(ctx, rc.Message)
	for _, n := range out.notes {
		if err := q.Write(ctx, e.artifactEvent(rc, n)); err != nil {
			return fmt.Errorf("notes: write artifact: %w", err)
		}
	}
	final := e.statusEvent(rc, out.state, e.statusMessage(rc, out))
	final.Final = true
	if e.echo && len(out.notes) > 0 {
		final.Metadata = map[string]any{"noteIds": idList(out.notes)}
	}
	if err := q.Write(ctx, final); err != nil {
		return fmt.Errorf("notes: write status: %w", err)
	}
	return nil
}

// Cancel implements a2asrv.AgentExecutor. A task held in working state
// stops there; a finished one is no longer cancelable (a2asrv refuses it).
func (e *executor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := e.statusEvent(rc, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// run carries out the command msg asks for, once the gateway has vouched
// for its operation.
func (e *executor) run(ctx context.Context, msg *a2a.Message) outcome {
	c, err := parseMessage(msg)
	if err != nil {
		return outcome{state: a2a.TaskStateFailed, status: err.Error()}
	}
	if err := client.RequireOperation(ctx, operationOf(c.skill)); err != nil {
		return outcome{state: a2a.TaskStateFailed, status: fmt.Sprintf("Not permitted: %s needs the %s operation.", c.skill, operationOf(c.skill))}
	}
	var touched []Note
	for _, id := range c.ids {
		var n Note
		if c.skill == SkillWrite {
			n, err = e.store.appendText(id, c.text)
		} else {
			n, err = e.store.get(id)
		}
		if err != nil {
			return outcome{state: a2a.TaskStateFailed, status: e.failure(id, err)}
		}
		touched = append(touched, n)
	}
	status := fmt.Sprintf("Read %d note(s).", len(touched))
	if c.skill == SkillWrite {
		status = fmt.Sprintf("Appended %d byte(s) to %q.", len(c.text), touched[0].Title)
	}
	return outcome{state: a2a.TaskStateCompleted, notes: touched, status: status}
}

// failure says why a note could not be used, naming it only when the
// agent echoes ids.
func (e *executor) failure(id string, err error) string {
	msg := "No such note."
	if errors.Is(err, ErrNoteFull) {
		msg = fmt.Sprintf("The note is full (at most %d bytes).", MaxNoteBytes)
	}
	if e.echo {
		msg += " (" + id + ")"
	}
	return msg
}

func (e *executor) statusEvent(rc *a2asrv.RequestContext, state a2a.TaskState, msg *a2a.Message) *a2a.TaskStatusUpdateEvent {
	ev := a2a.NewStatusUpdateEvent(rc, state, msg)
	now := e.now()
	ev.Status.Timestamp = &now
	return ev
}

// statusMessage is the agent's final word: what it did or why it failed.
func (e *executor) statusMessage(rc *a2asrv.RequestContext, out outcome) *a2a.Message {
	parts := []a2a.Part{a2a.TextPart{Text: out.status}}
	if e.echo && len(out.notes) > 0 {
		ids := make([]string, len(out.notes))
		for i, n := range out.notes {
			ids[i] = n.ID
		}
		parts[0] = a2a.TextPart{Text: out.status + " Touched " + strings.Join(ids, ", ") + "."}
		parts = append(parts, a2a.DataPart{Data: map[string]any{"noteIds": idList(out.notes)}})
	}
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, parts...)
}

// artifactEvent carries one note: its text, and its title and text as data.
func (e *executor) artifactEvent(rc *a2asrv.RequestContext, n Note) *a2a.TaskArtifactUpdateEvent {
	text := n.Text
	data := map[string]any{"title": n.Title, "text": n.Text}
	ev := a2a.NewArtifactEvent(rc, a2a.TextPart{Text: text}, a2a.DataPart{Data: data})
	ev.Artifact.Name = "note"
	ev.LastChunk = true
	if e.echo {
		ev.Artifact.Name = n.ID
		ev.Artifact.Metadata = map[string]any{"noteId": n.ID}
		ev.Artifact.Parts[0] = a2a.TextPart{Text: n.ID + "\n" + text}
		data["noteId"] = n.ID
	}
	return ev
}

// idList is the ids of notes as []any, the form a2asrv's task store copies.
func idList(notes []Note) []any {
	out := make([]any, len(notes))
	for i, n := range notes {
		out[i] = n.ID
	}
	return out
}
