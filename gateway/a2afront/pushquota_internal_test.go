package a2afront

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/pushrelay"
)

// TestRelayStoreError: the relay's refusals reach the caller under their
// own reason, the per-principal bound naming its limit; a store that
// cannot answer fails closed.
func TestRelayStoreError(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		name   string
		err    error
		code   int
		reason string
		limit  any
	}{
		{"principal full", &pushrelay.PrincipalFullError{Owner: "user:alice", Limit: 3}, jsonrpc.CodeInternal, "push_relay_principal_full", 3},
		{"principal full, wrapped", fmt.Errorf("put: %w", &pushrelay.PrincipalFullError{Owner: "user:alice", Limit: 7}), jsonrpc.CodeInternal, "push_relay_principal_full", 7},
		{"relay full", pushrelay.ErrFull, jsonrpc.CodeInternal, "push_relay_full", nil},
		{"store down", pushrelay.ErrUnavailable, jsonrpc.CodeRevocationUnavailable, "revocation_unavailable", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := relayStoreError(context.Background(), fx.front, tt.err)
			if e == nil || e.Code != tt.code || e.Reason() != tt.reason {
				t.Fatalf("relayStoreError = %+v, want %d %s", e, tt.code, tt.reason)
			}
			if data, _ := e.Data.(map[string]any); tt.limit != nil && data["limit"] != tt.limit {
				t.Errorf("data = %v, want limit %v", e.Data, tt.limit)
			}
		})
	}
}

// TestPrincipalBoundRefusesTheSet: a set beyond the caller's bound is
// refused naming the limit and is never forwarded; another caller's set
// still is.
func TestPrincipalBoundRefusesTheSet(t *testing.T) {
	fx := newFixture(t)
	relay, err := pushrelay.Open(&config.PushRelay{URL: "https://gw.example", MaxAttempts: 1, QueueSize: 1, MaxConfigs: 10,
		MaxConfigsPerPrincipal: 1}, pushrelay.Options{Key: bytes.Repeat([]byte{1}, 32), TTL: time.Hour, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { relay.Close() })
	fx.front.deps.Push = relay
	fx.front.agents["documents"].cfg.PushRelay = config.PushRelayAll
	fx.front.agents["documents"].cfg.TaskOwnership = config.TaskOwnershipOff // tasks the agent has not started
	set := func(key, task string) outcome {
		return fx.front.decide(context.Background(), fx.call(t, key, "documents",
			`{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"`+task+
				`","pushNotificationConfig":{"url":"https://93.184.216.34/hook"}}}`))
	}
	if out := set(aliceKey, "t1"); out.forward == nil {
		t.Fatalf("alice's first set: %+v", out.resp)
	}
	out := set(aliceKey, "t2")
	if out.resp == nil || out.resp.Error == nil || out.resp.Error.Reason() != "push_relay_principal_full" || out.forward != nil {
		t.Errorf("alice's second set: %+v, forward %s", out.resp, out.forward)
	}
	if n := len(fx.upstream.calls("tasks/pushNotificationConfig/set")); n != 0 {
		t.Errorf("the agent received %d sets", n)
	}
	if out := set(bobKey, "t3"); out.forward == nil {
		t.Errorf("bob's set: %+v", out.resp)
	}
}
