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
			var msg map[string]any
			if err := json.Unmarshal(resp.Result, &msg); err != nil {
				t.Fatal(err)
			}
			if msg["kind"] != "message" || msg["role"] != "agent" {
				t.Errorf("result kind/role = %v/%v, want message/agent", msg["kind"], msg["role"])
			}
			if got := textOf(msg); got != documents.Description {
				t.Errorf("text = %q, want the description", got)
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
			for i, ev := range events {
				res, _ := ev["result"].(map[string]any)
				kinds[i], _ = res["kind"].(string)
				if ev["id"] != "s1" {
					t.Errorf("event %d id = %v, want s1", i, ev["id"])
				}
			}
			first := events[0]["result"].(map[string]any)
			status, _ := first["status"].(map[string]any)
			if kinds[0] != "status-update" || status["state"] != "working" {
				t.Errorf("first event = %v/%v, want a working status-update", kinds[0], status["state"])
			}
			last := events[len(events)-1]["result"].(map[string]any)
			if kinds[len(kinds)-1] != "message" || textOf(last) != documents.Description {
				t.Errorf("last event kind = %v, want the final message", kinds[len(kinds)-1])
			}
		})
	}
}

// streamedTaskID starts a stream and returns the task it created.
func streamedTaskID(t *testing.T, url string) string {
	t.Helper()
	first := stream(t, url, "message/stream")[0]["result"].(map[string]any)
	id, _ := first["taskId"].(string)
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
			if task["kind"] != "task" || task["id"] != id {
				t.Errorf("got %v %v, want task %s", task["kind"], task["id"], id)
			}
		})
	}
}

func TestCancelTaskEveryGeneration(t *testing.T) {
	_, srv := newServer(t)
	for _, method := range []string{"CancelTask", "tasks/cancel"} {
		t.Run(method, func(t *testing.T) {
			id := streamedTaskID(t, srv.URL)
			resp := call(t, srv.URL, method, map[string]any{"id": id}, nil)
			var task struct {
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			}
			if err := json.Unmarshal(resp.Result, &task); err != nil || resp.Error != nil {
				t.Fatalf("result %s error %+v: %v", resp.Result, resp.Error, err)
			}
			if task.Status.State != "canceled" {
				t.Errorf("state = %q, want canceled", task.Status.State)
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
