package gateway_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv/push"
	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestPushRelayAcrossReplicas: a config set through one replica is
// relayed by another sharing its Redis and key set; with Redis down the
// relay fails closed.
func TestPushRelayAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	mod := func(c *config.Config) {
		c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
			Timeout: config.Duration(replicaTimeout), MaxStaleness: config.Duration(time.Second), AllowNoPersistence: true}
	}
	bmod := func(o *gateway.BuildOptions) { o.Keys = ks }
	agent, rcv := startPushAgent(t, true), startReceiver(t)
	a := pushHarnessWith(t, agent, rcv, true, mod, bmod)
	b := pushHarnessWith(t, agent, rcv, true, mod, bmod)

	alice := a.notesCapability("alice-dev-key", "personal", "notes:read")
	body := a.notesCall("alice-dev-key", "message/send", withPush(noteMessage("read "+alice.handle("Alice's groceries"), alice.ID, "notes.read", ""),
		map[string]any{"url": rcv.srv.URL + "/r", "token": "caller-token"}))
	var task struct{ ID string }
	if r := decodeRPC(t, body); r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ID == "" {
		t.Fatalf("send through replica a: %s", body)
	}
	held, err := agent.store.List(context.Background(), a2a.TaskID(task.ID))
	if err != nil || len(held) != 1 {
		t.Fatalf("agent's push configs: %v %v", held, err)
	}
	// The agent reaches replica b (as behind a load balancer).
	toB := *held[0]
	relayURL, _ := url.Parse(toB.URL)
	bURL, _ := url.Parse(b.cfg.PushRelay.URL)
	relayURL.Host = bURL.Host
	toB.URL = relayURL.String()
	sender := push.NewHTTPPushSender(&push.HTTPSenderConfig{FailOnError: true})
	tk := &a2a.Task{ID: a2a.TaskID(task.ID), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired}}
	if err := sender.SendPush(context.Background(), &toB, tk); err != nil {
		t.Fatalf("push through replica b: %v", err)
	}
	for d := rcv.next(t); !strings.Contains(string(d.body), `"input-required"`); d = rcv.next(t) {
	}

	srv.Kill()
	if err := sender.SendPush(context.Background(), &toB, tk); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("push with Redis down: %v, want 503", err)
	}
}
