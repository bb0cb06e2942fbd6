package interop_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// TestGoV03UntranslatableRefused: a v0.3 call v1.0 cannot express (a
// tasks/get with metadata, which v1.0's GetTask has no place for) is
// refused with the member named, and the agent receives nothing.
func TestGoV03UntranslatableRefused(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, ctx := goClientFor(ctx, t, w, goV1Agent)
	_, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: "t-1", Metadata: map[string]any{"trace": "x"}})
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Details["reason"] != "untranslatable_call" || ae.Details["member"] != "params.metadata" {
		t.Fatalf("tasks/get with metadata: want untranslatable_call naming params.metadata, got %T %v", err, err)
	}
	if got := w.goV1.methods(); len(got) != 0 {
		t.Errorf("the agent received %v", got)
	}
}

// TestGoV03ClientFollowsV1Task: a stock a2a-go v0.3 client follows a
// task at the v1.0-only a2a-go/v2 agent through the gateway's
// translation: a send that does not block, push config set, get, list
// and delete, tasks/resubscribe, and tasks/cancel, whose cancellation the
// subscription sees as its final event.
func TestGoV03ClientFollowsV1Task(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, ctx := goClientFor(ctx, t, w, goV1Agent)
	blocking := false
	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: holdText}), Config: &a2a.MessageSendConfig{Blocking: &blocking},
	})
	task, ok := res.(*a2a.Task)
	if err != nil || !ok || task.Status.State.Terminal() {
		t.Fatalf("message/send not blocking: want a task still running, got %#v, %v", res, err)
	}

	const hook = "http://127.0.0.1:9/hook"
	set, err := c.SetTaskPushConfig(ctx, &a2a.TaskPushConfig{TaskID: task.ID, Config: a2a.PushConfig{ID: "p-1", URL: hook, Token: "tok"}})
	if err != nil || set.TaskID != task.ID || set.Config.URL != hook {
		t.Fatalf("tasks/pushNotificationConfig/set: got %+v, %v", set, err)
	}
	got, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigParams{TaskID: task.ID, ConfigID: set.Config.ID})
	if err != nil || got.Config.URL != hook {
		t.Fatalf("tasks/pushNotificationConfig/get: got %+v, %v", got, err)
	}
	list, err := c.ListTaskPushConfig(ctx, &a2a.ListTaskPushConfigParams{TaskID: task.ID})
	if err != nil || len(list) != 1 || list[0].Config.URL != hook {
		t.Fatalf("tasks/pushNotificationConfig/list: got %+v, %v", list, err)
	}
	if err := c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigParams{TaskID: task.ID, ConfigID: set.Config.ID}); err != nil {
		t.Fatalf("tasks/pushNotificationConfig/delete: %v", err)
	}

	var last a2a.Event
	n := 0
	for ev, err := range c.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: task.ID}) {
		if err != nil {
			t.Fatalf("tasks/resubscribe: %v", err)
		}
		if n++; n == 1 {
			canceled, err := c.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID})
			if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("tasks/cancel: got %+v, %v; want the task canceled", canceled, err)
			}
		}
		last = ev
	}
	if st, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCanceled || !st.Final {
		t.Errorf("tasks/resubscribe ended with %#v, want a final canceled status update", last)
	}
	want := []string{"SendMessage", "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
		"ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig", "SubscribeToTask", "CancelTask"}
	if !slices.Equal(w.goV1.methods(), want) {
		t.Errorf("the agent received %v, want %v", w.goV1.methods(), want)
	}
}

// TestGoV03ClientDelegatesToV1Agent: a stock a2a-go v0.3 client delegates
// a capability to the v1.0-only a2a-go/v2 agent through the message's
// extension metadata; the minted child travels translated, and the agent
// finds it, never the caller's own capability.
func TestGoV03ClientDelegatesToV1Agent(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	parent := aliceReports(ctx, t, w)
	c, ctx := goClientFor(ctx, t, w, goV1Agent)
	res, err := c.SendMessage(ctx, capMessage("Summarize these", map[string]any{"capabilities": []string{parent.ID}}))
	task, ok := res.(*a2a.Task)
	if err != nil || !ok {
		t.Fatalf("delegating message/send: %#v, %v", res, err)
	}
	checkGoEcho(t, task.Artifacts, "Summarize these")
	checkChildIn(t, task.Artifacts[0].Parts[0].(a2a.DataPart).Data, parent.ID)
}

// TestGoV03RefusalsAtV1Agent: with the a2a-go/v2 agent standing as the
// quickstart's gated notes agent, each capability refusal reaches a stock
// a2a-go v0.3 application with capgate's reason, unary and streamed, and
// the agent receives nothing.
func TestGoV03RefusalsAtV1Agent(t *testing.T) {
	w, agent := startV1NotesWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	notes, nctx := goClientFor(ctx, t, w, "notes")
	for _, tt := range refusalCases(issueNotes(ctx, t, w)) {
		t.Run(tt.name, func(t *testing.T) {
			send := &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: tt.text})}
			if tt.ext != nil {
				send = capMessage(tt.text, tt.ext)
			}
			_, err := notes.SendMessage(nctx, send)
			var streamErr error
			for _, err := range notes.SendStreamingMessage(nctx, send) {
				if err != nil {
					streamErr = err
					break
				}
			}
			for call, err := range map[string]error{"message/send": err, "message/stream": streamErr} {
				var ae *a2a.Error
				if !errors.As(err, &ae) || ae.Details["reason"] != tt.reason {
					t.Errorf("%s: the application read %T %v, want reason %s", call, err, err, tt.reason)
				}
			}
		})
	}
	if got := agent.methods(); len(got) != 0 {
		t.Errorf("the agent received refused calls: %v", got)
	}
}

// TestGoV03GatedMessageAtV1Agent: a stock a2a-go v0.3 client's message
// to the a2a-go/v2 agent standing as the gated notes agent, with a
// capability and a resource handle, reaches the agent translated to v1.0
// with the handle turned into the note's id, and the agent's echo of it
// comes back in v0.3 shapes with the handle again, never the id.
func TestGoV03GatedMessageAtV1Agent(t *testing.T) {
	w, agent := startV1NotesWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cp := issueNotes(ctx, t, w).readOnly
	if len(cp.ResourceHandles) == 0 {
		t.Fatalf("the capability names no resource: %+v", cp)
	}
	handle := cp.ResourceHandles[0].Handle
	notes, nctx := goClientFor(ctx, t, w, "notes")
	res, err := notes.SendMessage(nctx, capMessage("read "+handle, map[string]any{"capabilityId": cp.ID, "skill": "notes.read"}))
	task, ok := res.(*a2a.Task)
	if err != nil || !ok {
		t.Fatalf("message/send: %#v, %v", res, err)
	}
	checkGoEcho(t, task.Artifacts, "read "+handle)
	if got := agent.methods(); !slices.Equal(got, []string{"SendMessage"}) {
		t.Fatalf("the agent received %v, want one SendMessage", got)
	}
	if body := agent.received()[0]; strings.Contains(body, handle) || !strings.Contains(body, "read notes/") {
		t.Errorf("the agent received %s, want the note's id in place of the handle %s", body, handle)
	}
}
