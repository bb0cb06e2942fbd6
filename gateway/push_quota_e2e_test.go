package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestPushRelayPrincipalBoundAcrossReplicas: two replicas on one Redis,
// taking a caller's push config sets at once, relay no more than the
// caller's bound between them; every other set is refused naming the
// limit and never reaches the agent; deleting a config through either
// replica frees its place.
func TestPushRelayPrincipalBoundAcrossReplicas(t *testing.T) {
	const bound, sets = 2, 8
	srv := redistest.Start(t)
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	mod := func(c *config.Config) {
		c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
			Timeout: config.Duration(time.Second), MaxStaleness: config.Duration(time.Second), AllowNoPersistence: true}
		c.PushRelay.MaxConfigsPerPrincipal = bound
	}
	bmod := func(o *gateway.BuildOptions) { o.Keys = ks }
	agent, rcv := startPushAgent(t, true), startReceiver(t)
	replicas := []*harness{pushHarnessWith(t, agent, rcv, true, mod, bmod), pushHarnessWith(t, agent, rcv, true, mod, bmod)}

	alice := replicas[0].notesCapability("alice-dev-key", "personal", "notes:read")
	r := decodeRPC(t, replicas[0].notesCall("alice-dev-key", "message/send", noteMessage("read", alice.ID, "notes.read", "")))
	var task struct{ ID string }
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ID == "" {
		t.Fatalf("send: %+v", r.Error)
	}
	set := func(h *harness, id string) []byte {
		return h.notesCall("alice-dev-key", "tasks/pushNotificationConfig/set", map[string]any{"taskId": task.ID,
			"pushNotificationConfig": map[string]any{"id": id, "url": rcv.srv.URL + "/" + id},
			"metadata":               map[string]any{agentcard.ExtensionURI: map[string]any{"capabilityId": alice.ID}}})
	}

	before := agent.counter.n.Load()
	answers := make([][]byte, sets)
	var wg sync.WaitGroup
	for i := range sets {
		wg.Go(func() { answers[i] = set(replicas[i%2], fmt.Sprintf("c%d", i)) })
	}
	wg.Wait()
	relayed := 0
	for _, body := range answers {
		r := decodeRPC(t, body)
		switch {
		case r.Error == nil:
			relayed++
		case r.Error.Code != jsonrpc.CodeInternal || !strings.Contains(string(body), `"reason":"push_relay_principal_full"`) ||
			!strings.Contains(string(body), fmt.Sprintf(`"limit":%d`, bound)):
			t.Errorf("refused set: %s", body)
		}
	}
	if relayed != bound {
		t.Fatalf("%d sets relayed, want %d", relayed, bound)
	}
	if n := agent.counter.n.Load() - before; n != bound {
		t.Errorf("the agent received %d sets, want only the %d relayed", n, bound)
	}
	held, err := agent.store.List(context.Background(), a2a.TaskID(task.ID))
	if err != nil || len(held) != bound {
		t.Fatalf("agent's push configs: %d, %v", len(held), err)
	}

	// Deleting one through the other replica frees its place.
	del := replicas[1].notesCall("alice-dev-key", "tasks/pushNotificationConfig/delete", map[string]any{"id": task.ID,
		"pushNotificationConfigId": held[0].ID,
		"metadata":                 map[string]any{agentcard.ExtensionURI: map[string]any{"capabilityId": alice.ID}}})
	if r := decodeRPC(t, del); r.Error != nil {
		t.Fatalf("delete: %s", del)
	}
	if r := decodeRPC(t, set(replicas[0], "after-delete")); r.Error != nil {
		t.Errorf("set after a delete: %+v", r.Error)
	}
}
