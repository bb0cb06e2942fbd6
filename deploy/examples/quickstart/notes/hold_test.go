package notes

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// subscriptions wraps a2asrv's in-memory queue manager and reports each
// subscription to a task's events (each Get), so a test knows when a
// resubscriber is listening without waiting on a clock.
type subscriptions struct {
	eventqueue.Manager
	got chan a2a.TaskID
}

func (s subscriptions) Get(ctx context.Context, tid a2a.TaskID) (eventqueue.Queue, bool) {
	q, ok := s.Manager.Get(ctx, tid)
	s.got <- tid
	return q, ok
}

// events ranges over seq in a goroutine and hands each event on.
func events(seq func(func(a2a.Event, error) bool)) <-chan a2a.Event {
	ch := make(chan a2a.Event, 16)
	go func() {
		defer close(ch)
		seq(func(ev a2a.Event, err error) bool {
			if err != nil {
				return false
			}
			ch <- ev
			return true
		})
	}()
	return ch
}

// until reads ch up to the first event of kind want, and returns the kinds
// read.
func until(t *testing.T, ch <-chan a2a.Event, want string) []string {
	t.Helper()
	var kinds []string
	for ev := range ch {
		kinds = append(kinds, eventKind(ev))
		if kinds[len(kinds)-1] == want {
			return kinds
		}
	}
	t.Fatalf("the stream ended before %q: %v", want, kinds)
	return nil
}

// TestResubscribe follows a held task with tasks/resubscribe: the
// resubscriber sees the rest of the task once it is released.
func TestResubscribe(t *testing.T) {
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	subs := subscriptions{Manager: eventqueue.NewInMemoryManager(), got: make(chan a2a.TaskID, 4)}
	s := serve(t, Options{Hold: hold}, a2asrv.WithEventQueueManager(subs))
	t.Cleanup(release) // before the server closes
	ctx := context.Background()
	first := events(s.client.SendStreamingMessage(ctx, textMessage("read notes/alice-groceries")))
	ev := <-first
	task, ok := ev.(*a2a.Task)
	if !ok {
		t.Fatalf("first event %T, want the task", ev)
	}
	until(t, first, string(a2a.TaskStateWorking))
	<-subs.got // the stream's own subscription
	again := events(s.client.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: task.ID}))
	if tid := <-subs.got; tid != task.ID {
		t.Fatalf("subscribed to %q, want %q", tid, task.ID)
	}
	release()
	if got := strings.Join(until(t, again, string(a2a.TaskStateCompleted)), " "); got != "artifact completed" {
		t.Errorf("resubscriber saw %s", got)
	}
	if got := strings.Join(until(t, first, string(a2a.TaskStateCompleted)), " "); got != "artifact completed" {
		t.Errorf("the first stream saw %s", got)
	}
}

// TestCancel cancels a held task: it ends canceled, with no artifact, and
// a finished task can no longer be canceled.
func TestCancel(t *testing.T) {
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	s := serve(t, Options{Hold: hold})
	t.Cleanup(release) // before the server closes
	ctx := context.Background()
	stream := events(s.client.SendStreamingMessage(ctx, textMessage("append notes/alice-groceries: butter")))
	task, ok := (<-stream).(*a2a.Task)
	if !ok {
		t.Fatal("first event is not the task")
	}
	until(t, stream, string(a2a.TaskStateWorking))
	got, err := s.client.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2a.TaskStateCanceled || len(got.Artifacts) != 0 {
		t.Errorf("canceled task: state %q, %d artifacts", got.Status.State, len(got.Artifacts))
	}
	if n, _ := s.agent.Note("notes/alice-groceries"); strings.Contains(n.Text, "butter") {
		t.Error("a canceled append was applied")
	}
	release()
	done := s.send(t, textMessage("read notes/bob-ideas"))
	if _, err := s.client.CancelTask(ctx, &a2a.TaskIDParams{ID: done.ID}); err == nil {
		t.Error("a completed task was canceled")
	}
}
