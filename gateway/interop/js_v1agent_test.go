package interop_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// taskCanceled is TASK_STATE_CANCELED as the JS SDK reports it.
const taskCanceled = 5

type lifecycleOut struct {
	Error       *stepErr  `json:"error"`
	Send        sendOut   `json:"send"`
	Resubscribe streamOut `json:"resubscribe"`
	Cancel      sendOut   `json:"cancel"`
	Get         sendOut   `json:"get"`
}

// TestJSClientLifecycleV1Agent drives the stock JS client through the
// gateway to the stock a2a-go/v2 agent: a task held working is followed
// with resubscribeTask, canceled with cancelTask, whose cancellation the
// subscription sees, and read back canceled with getTask.
func TestJSClientLifecycleV1Agent(t *testing.T) {
	w := startWorld(t, true)
	var out lifecycleOut
	runClient(t, w.kit, "lifecycle", map[string]any{"base": w.base(goV1Agent), "bearer": quickstart.AliceKey, "text": holdText}, &out)
	if out.Error != nil || out.Send.Error != nil || out.Resubscribe.Error != nil {
		t.Fatalf("client failed: %+v %+v %+v", out.Error, out.Send.Error, out.Resubscribe.Error)
	}
	if out.Send.TaskID == "" || out.Send.State == float64(taskCompleted) {
		t.Fatalf("send returning immediately: want a task still running, got %+v", out.Send)
	}
	if out.Cancel.Error != nil || out.Cancel.State != float64(taskCanceled) {
		t.Errorf("cancelTask: got %+v, want the task canceled", out.Cancel)
	}
	ev := out.Resubscribe.Events
	if len(ev) < 2 || ev[len(ev)-1].State != float64(taskCanceled) {
		t.Errorf("resubscribeTask events %+v, want the stream to end canceled", ev)
	}
	if out.Get.Error != nil || out.Get.TaskID != out.Send.TaskID || out.Get.State != float64(taskCanceled) {
		t.Errorf("getTask: got %+v, want %s canceled", out.Get, out.Send.TaskID)
	}
	if got, want := w.goV1.methods(), []string{"SendMessage", "SubscribeToTask", "CancelTask", "GetTask"}; !slices.Equal(got, want) {
		t.Errorf("the agent received %v, want %v", got, want)
	}
}

type refusalsOut struct {
	Error *stepErr `json:"error"`
	Cases []struct {
		Send   map[string]any `json:"send"`
		Stream map[string]any `json:"stream"`
	} `json:"cases"`
}

// TestJSClientRefusalsV1Agent: with the stock a2a-go/v2 agent standing as
// the quickstart's gated notes agent, each capability refusal reaches the
// JS application, for sendMessage and for sendMessageStream, with
// capgate's code and reason, and the agent receives nothing. The SDK
// hands over a unary refusal's code and data as the error's members, and
// a streamed one's inside the error's message only.
func TestJSClientRefusalsV1Agent(t *testing.T) {
	w, agent := startV1NotesWorld(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cases := refusalCases(issueNotes(ctx, t, w))
	var args []map[string]any
	for _, c := range cases {
		args = append(args, map[string]any{"text": c.text, "ext": c.ext})
	}
	var out refusalsOut
	runClient(t, w.kit, "refusals", map[string]any{"base": w.base("notes"), "bearer": quickstart.AliceKey, "cases": args}, &out)
	if out.Error != nil || len(out.Cases) != len(cases) {
		t.Fatalf("client failed: %+v, %d cases", out.Error, len(out.Cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for step, res := range map[string]map[string]any{"sendMessage": out.Cases[i].Send, "sendMessageStream": out.Cases[i].Stream} {
				e := stepError(res)
				if e != nil && e["code"] == nil {
					e = fromStreamMessage(e)
				}
				if e == nil || e["code"] != float64(c.code) || reasonOf(e) != c.reason {
					t.Errorf("%s: the application read %v, want %d %s", step, res, c.code, c.reason)
				}
			}
		})
	}
	if got := agent.methods(); len(got) != 0 {
		t.Errorf("the agent received refused calls: %v", got)
	}
}

// fromStreamMessage reads code and data from the message of the plain
// Error @a2a-js/sdk 1.3.0 throws for an error event in a stream: "SSE
// event contained an error: MESSAGE (Code: CODE) Data: JSON: MESSAGE",
// where for a unary call it hands over code and data as members.
func fromStreamMessage(e map[string]any) map[string]any {
	msg, _ := e["message"].(string)
	_, rest, ok := strings.Cut(msg, "(Code: ")
	if !ok {
		return e
	}
	num, rest, _ := strings.Cut(rest, ") Data: ")
	code, err := strconv.Atoi(num)
	if err != nil {
		return e
	}
	var data any
	if json.NewDecoder(strings.NewReader(rest)).Decode(&data) != nil {
		return e
	}
	return map[string]any{"code": float64(code), "data": data}
}

type pushOut struct {
	Error  *stepErr       `json:"error"`
	Create map[string]any `json:"create"`
	Get    map[string]any `json:"get"`
	List   map[string]any `json:"list"`
	Delete map[string]any `json:"delete"`
	After  map[string]any `json:"after"`
}

// TestJSClientPushConfigsV1Agent: the stock JS client creates, reads,
// lists and deletes a push config on its task at the a2a-go/v2 agent
// through the gateway. The task is held working, so nothing is pushed.
func TestJSClientPushConfigsV1Agent(t *testing.T) {
	w := startWorld(t, true)
	const hook = "http://127.0.0.1:9/hook"
	var out pushOut
	runClient(t, w.kit, "push", map[string]any{"base": w.base(goV1Agent), "bearer": quickstart.AliceKey, "text": holdText, "hook": hook}, &out)
	if out.Error != nil {
		t.Fatalf("client failed: %+v", out.Error)
	}
	for step, got := range map[string]map[string]any{"create": out.Create, "get": out.Get} {
		if got["url"] != hook || got["id"] != "p-1" {
			t.Errorf("%s: got %v, want the config p-1 for %s", step, got, hook)
		}
	}
	if out.Delete["deleted"] != true {
		t.Errorf("delete: got %v", out.Delete)
	}
	if stepError(out.After) == nil {
		t.Errorf("get after the deletion: got %v, want an error", out.After)
	}
	if configs, _ := out.List["configs"].([]any); len(configs) != 1 {
		t.Errorf("list: got %v, want the one config", out.List)
	}
}
