package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv/push"

	"github.com/capgate/capgate/gateway/config"
)

// TestPushRelayFrozenAgent: on an agent whose every push config is
// relayed, a config set without a capability is relayed too; once an
// operator freezes the agent, what it pushes to the relay is refused
// (410) and never delivered, as a scoped config's push is.
func TestPushRelayFrozenAgent(t *testing.T) {
	agent, rcv := startPushAgent(t, true), startReceiver(t)
	h := pushHarnessWith(t, agent, rcv, true, func(c *config.Config) {
		c.Agents[1].Messages, c.Agents[1].PushRelay = nil, config.PushRelayAll
	}, nil)
	hook := map[string]any{"url": rcv.srv.URL + "/hook", "token": "caller-token"}
	body := h.notesCall("alice-dev-key", "message/send", withPush(noteMessage("hello", "", "", ""), hook))
	var task struct {
		ID string `json:"id"`
	}
	if r := decodeRPC(t, body); r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ID == "" {
		t.Fatalf("send: %s", body)
	}
	held, err := agent.store.List(context.Background(), a2a.TaskID(task.ID))
	if err != nil || len(held) != 1 || !strings.Contains(held[0].URL, "/a2a/notes/push/") {
		t.Fatalf("the agent's push configs are not the relay's: %v %v", held, err)
	}
	rcv.next(t)
	if code, out := adminCall(t, h.admin(t), "POST", "/admin/freeze", "admin-dev-key",
		`{"kind":"agent","name":"notes","reason":"compromised"}`); code != 200 {
		t.Fatalf("freeze: %d %v", code, out)
	}
	for len(rcv.got) > 0 {
		<-rcv.got
	}
	sender := push.NewHTTPPushSender(&push.HTTPSenderConfig{FailOnError: true})
	tk := &a2a.Task{ID: a2a.TaskID(task.ID), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCanceled}}
	if err := sender.SendPush(context.Background(), held[0], tk); err == nil || !strings.Contains(err.Error(), "410") {
		t.Errorf("push from the frozen agent: %v, want 410 Gone", err)
	}
	for len(rcv.got) > 0 {
		if d := <-rcv.got; strings.Contains(string(d.body), `"canceled"`) {
			t.Errorf("a frozen agent's push was delivered: %s", d.body)
		}
	}
}
