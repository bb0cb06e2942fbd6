package documents_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// sendParams holds one message in each generation's wire shape.
func sendParams() map[string]any {
	return map[string]any{
		// v1.0: ROLE_ enum, parts without kind.
		"SendMessage": map[string]any{"message": map[string]any{
			"messageId": "m-1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello"}},
		}},
		// v0.3: kind discriminator.
		"message/send": map[string]any{"message": map[string]any{
			"messageId": "m-2", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "hello"}},
		}},
		// v0.1: task id and session id, type discriminator, no messageId.
		"tasks/send": map[string]any{"id": "task-01", "sessionId": "sess-01", "message": map[string]any{
			"role": "user", "parts": []any{map[string]any{"type": "text", "text": "hello"}},
		}},
		// SEP delegated send.
		"a2a/task/send": map[string]any{
			"message":      map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "Summarize this document"}}},
			"capabilities": []any{"cap_7f3a9b"},
		},
	}
}

func TestSendEveryGeneration(t *testing.T) {
	a, srv := newServer(t)
	for method, params := range sendParams() {
		t.Run(method, func(t *testing.T) {
			resp := call(t, srv.URL, method, params, nil)
			if resp.Error != nil {
				t.Fatalf("error: %+v", resp.Error)
			}
			var result map[string]any
			if err := json.Unmarshal(resp.Result, &result); err != nil {
				t.Fatal(err)
			}
			kind, task := payload(t, method, result)
			status, _ := task["status"].(map[string]any)
			if kind != "task" || status["state"] != taskState(method, "completed") {
				t.Errorf("result kind/state = %v/%v, want a completed task", kind, status["state"])
			}
			if got := answerText(task["artifacts"]); got != documents.Description {
				t.Errorf("artifact text = %q, want the description", got)
			}
			if string(resp.ID) != "7" {
				t.Errorf("id = %s, want 7", resp.ID)
			}
		})
	}
	if got := a.Recorder().CountRPC("tasks/send"); got != 1 {
		t.Errorf("recorder saw tasks/send %d times, want 1 (recorded as received)", got)
	}
}

func TestV01SessionBecomesContext(t *testing.T) {
	_, srv := newServer(t)
	resp := call(t, srv.URL, "tasks/send", sendParams()["tasks/send"], nil)
	var msg struct {
		ContextID string `json:"contextId"`
	}
	if err := json.Unmarshal(resp.Result, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.ContextID != "sess-01" {
		t.Errorf("contextId = %q, want the v0.1 sessionId", msg.ContextID)
	}
}

// stream opens a streaming call and returns its events.
func stream(t *testing.T, url, method string) []map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": method,
		"params": sendParams()["message/send"]})
	resp := post(t, url, string(body), nil)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	return sseEvents(t, resp.Body)
}

func TestStreamEveryGeneration(t *testing.T) {
	_, srv := newServer(t)
	for _, method := range []string{"SendStreamingMessage", "message/stream", "tasks/sendSubscribe"} {
		t.Run(method, func(t *testing.T) {
			events := stream(t, srv.URL, method)
			if len(events) < 2 {
				t.Fatalf("got %d events, want at least 2", len(events))
			}
			kinds := make([]string, len(events))
			objs := make([]map[string]any, len(events))
			for i, ev := range events {
				res, _ := ev["result"].(map[string]any)
				kinds[i], objs[i] = payload(t, method, res)
				if ev["id"] != "s1" {
					t.Errorf("event %d id = %v, want s1", i, ev["id"])
				}
			}
			want := []string{"task", "status-update", "artifact-update", "status-update"}
			if strings.Join(kinds, " ") != strings.Join(want, " ") {
				t.Fatalf("events %v, want %v", kinds, want)
			}
			status, _ := objs[1]["status"].(map[string]any)
			if status["state"] != taskState(method, "working") {
				t.Errorf("second event state %v, want working", status["state"])
			}
			if _, final := objs[1]["final"]; final == (method == "SendStreamingMessage") {
				t.Errorf("status-update final member present = %v; v1.0 has none, v0.3 always has it", final)
			}
			if got := answerText([]any{objs[2]["artifact"]}); got != documents.Description {
				t.Errorf("artifact text = %q, want the description", got)
			}
			if status, _ := objs[3]["status"].(map[string]any); status["state"] != taskState(method, "completed") {
				t.Errorf("last event state %v, want completed", status["state"])
			}
		})
	}
}

// answerText is the text of the one text part of the one artifact of
// artifacts, in either generation's shape.
func answerText(artifacts any) string {
	list, _ := artifacts.([]any)
	if len(list) != 1 {
		return ""
	}
	a, _ := list[0].(map[string]any)
	parts, _ := a["parts"].([]any)
	if len(parts) != 1 {
		return ""
	}
	p, _ := parts[0].(map[string]any)
	s, _ := p["text"].(string)
	return s
}

// streamedTaskID starts a stream and returns the task it created.
func streamedTaskID(t *testing.T, url string) string {
	t.Helper()
	first := stream(t, url, "message/stream")[0]["result"].(map[string]any)
	id, _ := first["id"].(string)
	if id == "" {
		t.Fatal("no taskId in first event")
	}
	return id
}

func TestGetTaskEveryGeneration(t *testing.T) {
	_, srv := newServer(t)
	id := streamedTaskID(t, srv.URL)
	for _, method := range []string{"GetTask", "tasks/get"} {
		t.Run(method, func(t *testing.T) {
			resp := call(t, srv.URL, method, map[string]any{"id": id}, nil)
			var task map[string]any
			if err := json.Unmarshal(resp.Result, &task); err != nil || resp.Error != nil {
				t.Fatalf("result %s error %+v: %v", resp.Result, resp.Error, err)
			}
			wantKind := map[string]any{"GetTask": nil, "tasks/get": "task"}[method]
			if task["kind"] != wantKind || task["id"] != id {
				t.Errorf("got %v %v, want task %s (kind %v)", task["kind"], task["id"], id, wantKind)
			}
			status, _ := task["status"].(map[string]any)
			if status["state"] != taskState(method, "completed") {
				t.Errorf("state = %v, want %s", status["state"], taskState(method, "completed"))
			}
		})
	}
}

// TestCancelTaskEveryGeneration cancels, in each generation, a task the
// agent has completed: a2asrv refuses it as not cancelable, with A2A's
// code, so every generation's name reaches it.
func TestCancelTaskEveryGeneration(t *testing.T) {
	_, srv := newServer(t)
	for _, method := range []string{"CancelTask", "tasks/cancel"} {
		t.Run(method, func(t *testing.T) {
			id := streamedTaskID(t, srv.URL)
			resp := call(t, srv.URL, method, map[string]any{"id": id}, nil)
			if resp.Error == nil || resp.Error.Code != -32002 {
				t.Fatalf("result %s error %+v, want TaskNotCancelable (-32002)", resp.Result, resp.Error)
			}
		})
	}
}

func TestUnknownTask(t *testing.T) {
	_, srv := newServer(t)
	resp := call(t, srv.URL, "GetTask", map[string]any{"id": "no-such-task"}, nil)
	if resp.Error == nil {
		t.Fatalf("want an error for an unknown task, got %s", resp.Result)
	}
}

// isV1 reports whether method is a v1.0 name, answered in v1.0 shapes.
func isV1(method string) bool {
	return method != "" && method[0] >= 'A' && method[0] <= 'Z'
}

// payload returns the kind and object of a send or stream result in the
// shape of method's generation: v1.0 wraps it in one member named after
// its kind and has no "kind" anywhere; v0.3 discriminates by "kind".
func payload(t *testing.T, method string, result map[string]any) (string, map[string]any) {
	t.Helper()
	if !isV1(method) {
		kind, _ := result["kind"].(string)
		return kind, result
	}
	if len(result) != 1 {
		t.Fatalf("v1.0 result %v: want exactly one payload member", result)
	}
	kinds := map[string]string{"message": "message", "task": "task", "statusUpdate": "status-update", "artifactUpdate": "artifact-update"}
	for name, v := range result {
		obj, _ := v.(map[string]any)
		raw, _ := json.Marshal(obj)
		if kinds[name] == "" || strings.Contains(string(raw), `"kind"`) {
			t.Fatalf("v1.0 payload %s %s: want a v1.0 member with no kind", name, raw)
		}
		return kinds[name], v1PartsAsV03(obj)
	}
	return "", nil
}

// v1PartsAsV03 marks a v1.0 message's text parts with their v0.3 kind so
// textOf reads them.
func v1PartsAsV03(msg map[string]any) map[string]any {
	parts, _ := msg["parts"].([]any)
	for _, p := range parts {
		if part, ok := p.(map[string]any); ok && part["text"] != nil {
			part["kind"] = "text"
		}
	}
	return msg
}

func taskState(method, v03 string) string {
	if isV1(method) {
		return "TASK_STATE_" + strings.ToUpper(v03)
	}
	return v03
}
