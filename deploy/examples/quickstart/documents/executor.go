package documents

import (
	"context"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// Description is the text the documents agent answers any message with.
const Description = "I am the documents agent. I act only on the documents a capability designates. " +
	"Skills, called with a2a/skill/invoke and a capabilityId: " +
	"retrieve_document (retrieve), search_documents (search), list_documents (list), " +
	"update_document (update), delete_document (delete). " +
	"Grants: documents:read, documents:write (requires documents:read), documents:admin (legacy)."

// ProgressText is the status message of the working update the documents
// agent streams before its answer.
const ProgressText = "Looking up what I can do…"

// executor answers every message with a task, streamed or not, so that
// a caller can read it back with tasks/get (GetTask): the task is
// submitted, then working with [ProgressText] as its status message, then
// gets one artifact holding [Description] as a text part, then completes.
// A message that continues a stored task continues it instead of
// submitting a new one.
type executor struct {
	now func() time.Time
}

var _ a2asrv.AgentExecutor = executor{}

// Execute implements a2asrv.AgentExecutor.
func (e executor) Execute(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	var events []a2a.Event
	if reqCtx.StoredTask == nil {
		events = append(events, a2a.NewSubmittedTask(reqCtx, reqCtx.Message))
	}
	progress := a2a.NewMessageForTask(a2a.MessageRoleAgent, reqCtx, a2a.TextPart{Text: ProgressText})
	working := a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateWorking, progress)
	stamp(working, e.now())
	answer := a2a.NewArtifactEvent(reqCtx, a2a.TextPart{Text: Description})
	answer.Artifact.Name = "answer"
	answer.LastChunk = true
	done := a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateCompleted, nil)
	done.Final = true
	stamp(done, e.now())
	for _, ev := range append(events, working, answer, done) {
		if err := writeEvent(ctx, q, ev); err != nil {
			return err
		}
	}
	return nil
}

// Cancel implements a2asrv.AgentExecutor.
func (e executor) Cancel(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateCanceled, nil)
	ev.Final = true
	stamp(ev, e.now())
	return writeEvent(ctx, q, ev)
}

func stamp(ev *a2a.TaskStatusUpdateEvent, t time.Time) {
	ev.Status.Timestamp = &t
}

func writeEvent(ctx context.Context, q eventqueue.Queue, ev a2a.Event) error {
	if err := q.Write(ctx, ev); err != nil {
		return fmt.Errorf("documents: write event: %w", err)
	}
	return nil
}
