package a2efront_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestWidenedRecordFailsClosed writes a widened session record straight
// into Redis, as anyone with write access to it could: the session is
// treated as gone, the widened capability never reaches the host, and the
// forgery is logged and audited.
func TestWidenedRecordFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	w := newWorld(t, worldOptions{stores: redisStores(t, srv, 1)})
	c := w.open(t)
	if resp, m := handshake(t, c, aliceKey, "tools", "env"); !resp.OK || capsByName(resp)["env"].Enabled {
		t.Fatalf("handshake/resp = %s, want tools only", m.Raw)
	}

	rdb := srv.NewClient(&redis.Options{})
	key := a2efront.DefaultRedisPrefix + "{" + c.SessionID + "}:s"
	data, err := rdb.HGet(testCtx(t), key, "data").Result()
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(data), &rec); err != nil {
		t.Fatal(err)
	}
	rec["accepted"] = []string{"tools", "env"}
	widened, _ := json.Marshal(rec)
	if err := rdb.HSet(testCtx(t), key, "data", widened).Err(); err != nil {
		t.Fatal(err)
	}

	status, body := sendRaw(t, c, string(mustEncode(t, nextID(), &a2e.EnvResetReq{})))
	if status != http.StatusNotFound || !strings.Contains(body, "unknown_session") {
		t.Errorf("env/reset/req on a widened record: %d %s, want 404 unknown_session", status, body)
	}
	if n := len(w.hostSaw(a2e.TypeEnvResetReq)); n != 0 {
		t.Errorf("host saw %d env/reset/req", n)
	}
	if n, _ := rdb.Exists(testCtx(t), key).Result(); n != 0 {
		t.Error("the forged record is still in Redis")
	}
	if len(w.audit.events(a2efront.EventForgedRecord)) != 1 || !strings.Contains(w.logs.String(), "failed authentication") {
		t.Errorf("forgery not audited and logged: audit %v", w.audit.events(a2efront.EventForgedRecord))
	}
	assertNoSessionID(t, w, c.SessionID)
}

// TestForeignKeyRecordRefused: a replica with another record key (or a
// writer who copied a record from another deployment) is refused too.
func TestForeignKeyRecordRefused(t *testing.T) {
	srv := redistest.Start(t)
	stores := redisStores(t, srv, 1)
	w := newWorld(t, worldOptions{stores: stores})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools")
	other := newWorld(t, worldOptions{stores: redisStores(t, srv, 1), recordKey: []byte(strings.Repeat("k", a2efront.MinRecordKeyBytes))})
	b := lab.Attach(nil, other.base(0), c.SessionID)
	if status, body := sendRaw(t, b, string(mustEncode(t, nextID(), &a2e.ToolCallReq{ToolName: "echo"}))); status != http.StatusNotFound {
		t.Errorf("send through a front with another key: %d %s", status, body)
	}
	if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq) + other.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 0 {
		t.Errorf("hosts saw %d tool calls", n)
	}
}

// TestUnauthenticatedFloodNeverReachesHost: sessions nobody authenticates
// never open a session on the host, whatever their number; failed
// handshakes do not either; the first good handshake opens exactly one.
// (The per-client cap is raised: this is about the host, not the cap.)
func TestUnauthenticatedFloodNeverReachesHost(t *testing.T) {
	w := newWorld(t, worldOptions{config: func(c *a2efront.Config) { c.MaxSessionsPerClient = 500 }})
	var ids []string
	for range 200 {
		resp, err := http.Post(w.base(0)+"session", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST session: %d %s", resp.StatusCode, body)
		}
		ids = append(ids, body)
	}
	c := w.open(t)
	if resp, _ := handshake(t, c, "not-a-key", "tools"); resp.OK || resp.Reason != a2e.ReasonAuthFailed {
		t.Fatalf("bad key: %+v", resp)
	}
	if n := w.hostCalls.count("/session"); n != 0 {
		t.Fatalf("host saw %d POST /session before any authentication", n)
	}
	if n := w.lab.Recorder().Count(); n != 0 {
		t.Fatalf("host saw %d messages", n)
	}
	if resp, m := handshake(t, c, aliceKey, "tools"); !resp.OK {
		t.Fatalf("good handshake: %s", m.Raw)
	}
	id := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hi"}}, http.StatusAccepted)
	if r, ok := next(t, c).Body.(*a2e.ToolCallResp); !ok || r.ReqID != id {
		t.Errorf("echo after the handshake = %+v", r)
	}
	if n := w.hostCalls.count("/session"); n != 1 {
		t.Errorf("host saw %d POST /session, want 1", n)
	}
	if slices.ContainsFunc(ids, func(s string) bool { return !strings.Contains(s, "session_id") }) {
		t.Error("a POST /session answered without a session id")
	}
}

// assertNoSessionID checks that the id appears in no log line and no
// audit event.
func assertNoSessionID(t *testing.T, w *world, id string) {
	t.Helper()
	if strings.Contains(w.logs.String(), id) || strings.Contains(w.audit.String(), id) {
		t.Errorf("session id %s appears in the logs or audit events", id)
	}
}
