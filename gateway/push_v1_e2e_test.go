package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv/push"

	"github.com/capgate/capgate/gateway/agentcard"
)

// TestPushRelayV1Caller: a v1.0 caller of the v0.3 agent sets its push
// config in v1.0's shape; the pushes reach it in v1.0's shape; it lists
// the configs with v1.0's plural method and sees its own; deleting the
// config makes the relay forget it.
func TestPushRelayV1Caller(t *testing.T) {
	agent, rcv := startPushAgent(t, true), startReceiver(t)
	h := pushHarness(t, agent, rcv, true)
	alice := h.notesCapability("alice-dev-key", "personal", "notes:read")
	groceries := alice.handle("Alice's groceries")
	v1 := []string{"A2A-Version", "1.0", "A2A-Capability", alice.Token}
	send := map[string]any{
		"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []map[string]any{{"text": "read " + groceries}},
			"metadata": map[string]any{agentcard.ExtensionURI: map[string]any{"skill": "notes.read"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": rcv.srv.URL + "/v1", "token": "caller-token",
			"authentication": map[string]any{"scheme": "Bearer", "credentials": "caller-secret"}}},
	}
	body := h.notesCall("alice-dev-key", "SendMessage", send, v1...)
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if r := decodeRPC(t, body); r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Task.ID == "" {
		t.Fatalf("send: %s", body)
	}
	for d := rcv.next(t); !strings.Contains(string(d.body), groceries); d = rcv.next(t) {
		if !strings.HasPrefix(string(d.body), `{"task":`) || d.token != "caller-token" {
			t.Errorf("a v1.0 caller got %s (token %q)", d.body, d.token)
		}
		noStorageIDs(t, "push", d.body)
	}

	list := h.notesCall("alice-dev-key", "ListTaskPushNotificationConfigs", map[string]any{"taskId": res.Task.ID}, v1...)
	var listed struct {
		Configs []struct {
			ID, URL, Token string
			Authentication struct{ Scheme, Credentials string }
		} `json:"configs"`
	}
	if r := decodeRPC(t, list); r.Error != nil || json.Unmarshal(r.Result, &listed) != nil || len(listed.Configs) != 1 {
		t.Fatalf("list: %s", list)
	}
	if c := listed.Configs[0]; c.URL != rcv.srv.URL+"/v1" || c.Token != "caller-token" || c.Authentication.Scheme != "Bearer" ||
		c.Authentication.Credentials != "caller-secret" {
		t.Errorf("listed %+v", c)
	}

	held, err := agent.store.List(context.Background(), a2a.TaskID(res.Task.ID))
	if err != nil || len(held) != 1 {
		t.Fatalf("agent's push configs: %v %v", held, err)
	}
	del := h.notesCall("alice-dev-key", "DeleteTaskPushNotificationConfig",
		map[string]any{"taskId": res.Task.ID, "id": listed.Configs[0].ID}, v1...)
	if r := decodeRPC(t, del); r.Error != nil {
		t.Fatalf("delete: %s", del)
	}
	sender := push.NewHTTPPushSender(&push.HTTPSenderConfig{FailOnError: true})
	tk := &a2a.Task{ID: a2a.TaskID(res.Task.ID), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	if err := sender.SendPush(context.Background(), held[0], tk); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("push for a deleted config: %v, want 404", err)
	}
}
