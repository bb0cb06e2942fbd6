package a2afront

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/pushrelay"
)

// downStore is a relay store that cannot answer.
type downStore struct{ pushrelay.Store }

func (downStore) Get(context.Context, string, string) (pushrelay.Record, error) {
	return pushrelay.Record{}, pushrelay.ErrUnavailable
}

// testRelay is a relay in memory whose URLs are under https://gw.example,
// queueing up to queue pushes.
func testRelay(t testing.TB, queue int) *pushrelay.Relay {
	t.Helper()
	relay, err := pushrelay.Open(&config.PushRelay{URL: "https://gw.example", MaxAttempts: 1, QueueSize: queue, MaxConfigs: 10},
		pushrelay.Options{Key: bytes.Repeat([]byte{1}, 32), TTL: time.Hour, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { relay.Close() })
	return relay
}

// TestPushAnswer: a config in an agent's answer whose url is a relay URL
// becomes the caller's own; one the store cannot give back, or another
// principal's, refuses the answer rather than show the relay's URL or
// secret.
func TestPushAnswer(t *testing.T) {
	fx := newFixture(t)
	relay := testRelay(t, 1)
	fx.front.deps.Push = relay
	rec, secret, err := pushrelay.NewRecord(pushrelay.Record{Agent: "documents", Owner: fx.principal(t, aliceKey).ID, Task: "t1",
		Target: pushrelay.Target{URL: "https://alice.example/hook", Token: "alice-token"}})
	if err != nil || relay.Store.Put(context.Background(), rec) != nil {
		t.Fatal(err)
	}
	answer := `{"jsonrpc":"2.0","id":1,"result":{"taskId":"t1","pushNotificationConfig":{"id":"` + rec.ConfigID +
		`","url":"` + relay.URLFor("documents", rec.ID) + `","token":"` + secret + `"}}}`
	get := `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/get","params":{"id":"t1"}}`

	c := fx.call(t, aliceKey, "documents", get)
	c.canonical = jsonrpc.MethodGetTaskPushNotificationConfig
	out, err := fx.front.pushAnswer(context.Background(), c, []byte(answer))
	if err != nil || !strings.Contains(string(out), "https://alice.example/hook") || !strings.Contains(string(out), "alice-token") ||
		strings.Contains(string(out), secret) || strings.Contains(string(out), "/push/") {
		t.Errorf("alice's answer: %s, %v", out, err)
	}

	// The same answer with its slashes escaped, as some encoders write
	// them, is the same config.
	escaped := strings.ReplaceAll(answer, "/", `\/`)
	out, err = fx.front.pushAnswer(context.Background(), c, []byte(escaped))
	if err != nil || strings.Contains(string(out), secret) || !strings.Contains(string(out), "alice-token") {
		t.Errorf("alice's answer with escaped slashes: %s, %v", out, err)
	}

	bob := fx.call(t, bobKey, "documents", get)
	bob.canonical = c.canonical
	if _, err := fx.front.pushAnswer(context.Background(), bob, []byte(answer)); !errors.Is(err, errRelayAnswer) {
		t.Errorf("another principal's config: %v", err)
	}
	relay.Store = downStore{relay.Store}
	if _, err := fx.front.pushAnswer(context.Background(), c, []byte(answer)); !errors.Is(err, errRelayAnswer) {
		t.Errorf("store down: %v", err)
	}
}

// failingStore is a relay store whose writes fail.
type failingStore struct{ pushrelay.Store }

func (failingStore) Put(context.Context, pushrelay.Record) error { return pushrelay.ErrUnavailable }

// TestRelayStoreDownRefusesTheSend: a push config the relay cannot seal
// refuses the whole send (-32049 naming the push relay store), and the
// agent sees nothing.
func TestRelayStoreDownRefusesTheSend(t *testing.T) {
	fx := newFixture(t)
	relay := testRelay(t, 1)
	relay.Store = failingStore{relay.Store}
	fx.front.deps.Push = relay
	fx.front.agents["documents"].cfg.PushRelay = config.PushRelayAll
	out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]},`+
			`"configuration":{"pushNotificationConfig":{"url":"https://93.184.216.34/hook"}}}}`))
	if out.resp == nil || out.resp.Error == nil || out.resp.Error.Code != jsonrpc.CodeRevocationUnavailable ||
		!strings.Contains(out.resp.Error.Message, "push relay store") || out.forward != nil {
		t.Errorf("outcome %+v", out.resp)
	}
	if n := len(fx.upstream.calls("message/send")); n != 0 {
		t.Errorf("the agent received %d sends", n)
	}
}
