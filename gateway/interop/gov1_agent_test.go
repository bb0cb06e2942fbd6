package interop_test

import (
	"context"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2aproject/a2a-go/v2/a2a"
	clientv1 "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// TestGoV1ClientResubscribeCancel drives a stock a2a-go/v2 client through
// the gateway to the stock a2a-go/v2 agent, both A2A v1.0 (TestGoV1Client
// sends, streams and gets): a task held working is followed with
// SubscribeToTask and ended with CancelTask, which the subscription sees.
func TestGoV1ClientResubscribeCancel(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, ctx := goV1ClientFor(ctx, t, w, goV1Agent)

	task := holdTask(ctx, t, c)
	var states []string
	for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{ID: task.ID}) {
		if err != nil {
			t.Fatalf("SubscribeToTask: %v", err)
		}
		if len(states) == 0 {
			canceled, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{ID: task.ID})
			if err != nil || canceled.Status.State != a2av1.TaskStateCanceled {
				t.Fatalf("CancelTask: got %+v, %v; want the task canceled", canceled, err)
			}
		}
		states = append(states, v1EventState(ev))
	}
	if len(states) < 2 || states[len(states)-1] != string(a2av1.TaskStateCanceled) {
		t.Errorf("SubscribeToTask states %v, want the stream to end canceled", states)
	}
	want := []string{"SendMessage", "SubscribeToTask", "CancelTask"}
	if strings.Join(w.goV1.methods(), " ") != strings.Join(want, " ") {
		t.Errorf("the agent received %v, want %v", w.goV1.methods(), want)
	}
}

// holdTask starts a task the agent holds working, with a SendMessage
// that returns at once.
func holdTask(ctx context.Context, t *testing.T, c *clientv1.Client) *a2av1.Task {
	t.Helper()
	held := v1Send(holdText, nil)
	held.Config = &a2av1.SendMessageConfig{ReturnImmediately: true}
	res, err := c.SendMessage(ctx, held)
	task, ok := res.(*a2av1.Task)
	if err != nil || !ok || task.Status.State.Terminal() {
		t.Fatalf("SendMessage returning immediately: want a task still running, got %#v, %v", res, err)
	}
	return task
}

// v1EventState is the task state an event carries, or its kind.
func v1EventState(ev a2av1.Event) string {
	switch e := ev.(type) {
	case *a2av1.Task:
		return string(e.Status.State)
	case *a2av1.TaskStatusUpdateEvent:
		return string(e.Status.State)
	}
	return v1EventKind(ev)
}

// checkV1Echo asserts one artifact whose data part echoes text.
func checkV1Echo(t *testing.T, arts []*a2av1.Artifact, text string) map[string]any {
	t.Helper()
	if len(arts) != 1 || len(arts[0].Parts) != 1 {
		t.Fatalf("want one artifact with one part, got %#v", arts)
	}
	echo, _ := arts[0].Parts[0].Data().(map[string]any)
	if echo["text"] != text {
		t.Errorf("artifact part %#v, want the agent's echo of %q", arts[0].Parts[0], text)
	}
	return echo
}

// TestGoV1ClientDelegatesToV1Agent: a stock a2a-go/v2 client delegates a
// capability to the a2a-go/v2 agent through the message's extension
// metadata; the agent finds there a child minted for it, never the
// caller's own capability.
func TestGoV1ClientDelegatesToV1Agent(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	parent := aliceReports(ctx, t, w)
	c, ctx := goV1ClientFor(ctx, t, w, goV1Agent)
	res, err := c.SendMessage(ctx, v1Send("Summarize these", map[string]any{"capabilities": []string{parent.ID}}))
	task, ok := res.(*a2av1.Task)
	if err != nil || !ok {
		t.Fatalf("delegating SendMessage: %#v, %v", res, err)
	}
	checkChildIn(t, checkV1Echo(t, task.Artifacts, "Summarize these"), parent.ID)
}

// TestGoV1ClientPushConfigs: a stock a2a-go/v2 client sets, reads, lists
// and deletes a push config on its task at the a2a-go/v2 agent through
// the gateway. The task is held working, so nothing is pushed; the URL is
// loopback, which the SDK's sender refuses anyway.
func TestGoV1ClientPushConfigs(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, ctx := goV1ClientFor(ctx, t, w, goV1Agent)
	task := holdTask(ctx, t, c)
	const hook = "http://127.0.0.1:9/hook"
	set, err := c.CreateTaskPushConfig(ctx, &a2av1.PushConfig{TaskID: task.ID, ID: "p-1", URL: hook, Token: "tok"})
	if err != nil || set.URL != hook || set.TaskID != task.ID {
		t.Fatalf("CreateTaskPushNotificationConfig: got %+v, %v", set, err)
	}
	got, err := c.GetTaskPushConfig(ctx, &a2av1.GetTaskPushConfigRequest{TaskID: task.ID, ID: set.ID})
	if err != nil || got.URL != hook || got.ID != set.ID {
		t.Fatalf("GetTaskPushNotificationConfig: got %+v, %v", got, err)
	}
	list, err := c.ListTaskPushConfigs(ctx, &a2av1.ListTaskPushConfigRequest{TaskID: task.ID})
	if err != nil || len(list) != 1 || list[0].URL != hook {
		t.Fatalf("ListTaskPushNotificationConfigs: got %+v, %v", list, err)
	}
	if err := c.DeleteTaskPushConfig(ctx, &a2av1.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: set.ID}); err != nil {
		t.Fatalf("DeleteTaskPushNotificationConfig: %v", err)
	}
	if _, err := c.GetTaskPushConfig(ctx, &a2av1.GetTaskPushConfigRequest{TaskID: task.ID, ID: set.ID}); err == nil {
		t.Error("GetTaskPushNotificationConfig after the deletion found the config")
	}
}
