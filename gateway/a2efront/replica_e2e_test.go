package a2efront_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/revocation/redistest"
	"github.com/redis/go-redis/v9"
)

// redisStores returns n stores, each on its own client, sharing srv.
func redisStores(t testing.TB, srv *redistest.Server, n int) []a2efront.SessionStore {
	t.Helper()
	var out []a2efront.SessionStore
	for range n {
		st, err := a2efront.NewRedisStore(srv.NewClient(&redis.Options{MaxRetries: -1}), a2efront.RedisOptions{Timeout: redisTimeout, PollInterval: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}

// TestTwoReplicasShareSessions opens the session and its stream on front
// A and sends everything through front B: the handshake is rewritten on
// A from what B recorded, and B's refusals arrive on A's stream.
func TestTwoReplicasShareSessions(t *testing.T) {
	srv := redistest.Start(t)
	w := newWorld(t, worldOptions{stores: redisStores(t, srv, 2)})
	a := w.open(t) // session and stream on front A
	b := lab.Attach(nil, w.base(1), a.SessionID)

	id := send(t, b, &a2e.HandshakeReq{AgentID: "x", AgentCaps: []string{"tools", "memory", "env"}, AuthToken: aliceKey}, http.StatusAccepted)
	m := next(t, a)
	resp, ok := m.Body.(*a2e.HandshakeResp)
	if !ok || resp.ReqID != id || !resp.OK || capsByName(resp)["env"].Enabled || !capsByName(resp)["tools"].Enabled {
		t.Fatalf("handshake/resp on A = %s", m.Raw)
	}

	id = send(t, b, &a2e.EnvResetReq{}, http.StatusAccepted)
	if e := expectError(t, a, id, a2e.CodeCapabilityMissing); e.CapabilityName != "env" {
		t.Errorf("refusal on A = %+v", e)
	}
	id = send(t, b, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "via B"}}, http.StatusAccepted)
	if r, ok := next(t, a).Body.(*a2e.ToolCallResp); !ok || r.ReqID != id {
		t.Errorf("echo on A = %+v", r)
	}
	if n := len(w.hostSaw(a2e.TypeEnvResetReq)); n != 0 {
		t.Errorf("host saw %d env/reset/req", n)
	}
	assertNoSessionID(t, w, a.SessionID)
}

// TestRedisDownFailsClosed kills Redis after the handshake: nothing more
// is forwarded, and the caller is told to retry.
func TestRedisDownFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	w := newWorld(t, worldOptions{stores: redisStores(t, srv, 1)})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools")
	srv.Kill()
	status, body, err := c.Send(testCtx(t), mustEncode(t, nextID(), &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}}))
	if err != nil || status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"retryable":true`) {
		t.Errorf("send with Redis down: %d %s %v", status, body, err)
	}
	if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 0 {
		t.Errorf("host received %d tool calls with the store down", n)
	}
	if _, err := lab.NewSession(testCtx(t), nil, w.base(0)); err == nil {
		t.Error("a session was created with the store down")
	}
	if !strings.Contains(w.logs.String(), "session store unavailable") {
		t.Error("the store failure was not logged")
	}
	assertNoSessionID(t, w, c.SessionID)
}

// faultyStore fails chosen operations of a working store.
type faultyStore struct {
	a2efront.SessionStore
	failAdmit, failUpdate bool
}

var errInjected = errors.New("injected failure")

func (f *faultyStore) Admit(ctx context.Context, id, req string, max int, d time.Time) (a2efront.Admission, error) {
	if f.failAdmit {
		return 0, errors.Join(a2efront.ErrStoreUnavailable, errInjected)
	}
	return f.SessionStore.Admit(ctx, id, req, max, d)
}

func (f *faultyStore) Update(ctx context.Context, s a2efront.Session) (a2efront.Session, error) {
	if f.failUpdate && s.State == a2efront.StateReady {
		return a2efront.Session{}, errors.Join(a2efront.ErrStoreUnavailable, errInjected)
	}
	return f.SessionStore.Update(ctx, s)
}

func TestStoreFailuresFailClosed(t *testing.T) {
	t.Run("admit", func(t *testing.T) {
		st := &faultyStore{SessionStore: a2efront.NewMemoryStore(nil)}
		w := newWorld(t, worldOptions{stores: []a2efront.SessionStore{st}})
		c := w.open(t)
		handshake(t, c, aliceKey, "tools")
		st.failAdmit = true
		send(t, c, &a2e.ToolCallReq{ToolName: "echo"}, http.StatusServiceUnavailable)
		if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 0 {
			t.Errorf("host received %d tool calls", n)
		}
	})
	t.Run("recording the handshake", func(t *testing.T) {
		st := &faultyStore{SessionStore: a2efront.NewMemoryStore(nil), failUpdate: true}
		w := newWorld(t, worldOptions{stores: []a2efront.SessionStore{st}})
		c := w.open(t)
		resp, m := handshake(t, c, aliceKey, "tools", "memory")
		if resp.OK || resp.Reason != a2e.ReasonServerError || len(capsByName(resp)) != 2 || capsByName(resp)["tools"].Enabled {
			t.Fatalf("handshake/resp = %s, want ok:false server_error with nothing enabled", m.Raw)
		}
		id := send(t, c, &a2e.ToolCallReq{ToolName: "echo"}, http.StatusAccepted)
		expectError(t, c, id, a2e.CodeUnauthorized)
	})
}
