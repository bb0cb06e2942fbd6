package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/revocation/redistest"
)

const (
	aliceKey = "alice-dev-key"
	bobKey   = "bob-dev-key"
)

// notFound is the refusal of another principal's task, byte for byte.
const notFound = `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`

func rpcBody(method string, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
}

// sseData returns the data of every event of an SSE body.
func sseData(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ev := range bytes.Split(body, []byte("\n\n")) {
		for _, line := range bytes.Split(ev, []byte("\n")) {
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				var m map[string]any
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatalf("event data %s: %v", data, err)
				}
				out = append(out, m)
			}
		}
	}
	return out
}

// streamTask starts a task on the documents agent with message/stream
// as key and returns its id.
func streamTask(t *testing.T, h *harness, key string) string {
	t.Helper()
	_, b := h.post("documents", key, strings.Replace(sendBody, "message/send", "message/stream", 1))
	events := sseData(t, b)
	if len(events) == 0 {
		t.Fatalf("no event in the stream: %s", b)
	}
	res, _ := events[0]["result"].(map[string]any)
	id, _ := res["id"].(string) // the documents agent's first event is its task
	if id == "" || res["kind"] != "task" {
		t.Fatalf("first event names no task: %v", events[0])
	}
	return id
}

// TestTaskOwnership starts a task as alice through the gateway on a real
// A2A SDK agent, and checks that every follow-up by bob, in every
// generation's spelling, is refused exactly as a task that does not exist
// and never reaches the agent, while alice's pass.
func TestTaskOwnership(t *testing.T) {
	h := newHarness(t, nil, nil)
	task := streamTask(t, h, aliceKey)
	follow := []struct{ method, params string }{
		{"tasks/get", `{"id":%q}`},
		{"GetTask", `{"id":%q}`},
		{"GetTask", `{"name":"tasks/%s"}`},
		{"tasks/cancel", `{"id":%q}`},
		{"CancelTask", `{"ID":%q}`},
		{"tasks/resubscribe", `{"id":%q}`},
		{"SubscribeToTask", `{"id":%q}`},
		{"tasks/pushNotificationConfig/get", `{"id":%q}`},
		{"tasks/pushNotificationConfig/set", `{"taskId":%q,"pushNotificationConfig":{"url":"https://bob.example/hook"}}`},
		{"GetTaskPushNotificationConfig", `{"task_id":%q,"id":"c1"}`},
		{"ListTaskPushNotificationConfig", `{"taskId":%q}`},
		{"DeleteTaskPushNotificationConfig", `{"taskId":%q,"id":"c1"}`},
		{"message/send", `{"message":{"role":"user","messageId":"m2","taskId":%q,"parts":[{"kind":"text","text":"hi"}]}}`},
		{"message/send", `{"message":{"role":"user","messageId":"m3","referenceTaskIds":[%q],"parts":[{"kind":"text","text":"hi"}]}}`},
	}
	h.docs.Recorder().Reset()
	for _, f := range follow {
		for _, id := range []string{task, "no-such-task"} {
			_, b := h.post("documents", bobKey, rpcBody(f.method, fmt.Sprintf(f.params, id)))
			want := notFound
			if jsonrpc.IsStreaming(f.method) {
				// The caller asked for a stream: the refusal is its one event.
				want = "data: " + notFound + "\n\n"
			}
			if string(b) != want {
				t.Errorf("bob's %s %s on %s: got %q, want %q", f.method, f.params, id, b, want)
			}
		}
	}
	h.upstreamSawNothing()
	for _, method := range []string{"tasks/get", "GetTask"} {
		_, b := h.post("documents", aliceKey, rpcBody(method, fmt.Sprintf(`{"id":%q}`, task)))
		if r := decodeRPC(t, b); r.Error != nil || !strings.Contains(string(r.Result), task) {
			t.Fatalf("alice's own %s refused: %s", method, b)
		}
	}
	_, b := h.post("documents", aliceKey, rpcBody("tasks/cancel", fmt.Sprintf(`{"id":%q}`, task)))
	if r := decodeRPC(t, b); r.Error != nil && r.Error.Code == -32001 {
		t.Fatalf("alice's own cancel refused as not found: %s", b)
	}
	if n := h.calls(); n != 3 {
		t.Fatalf("the agent saw %d calls, want alice's 3", n)
	}
}

// TestTaskOwnershipOff checks the migration switch: with task_ownership
// off, follow-ups are forwarded on authentication alone, as before.
func TestTaskOwnershipOff(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Agents[0].TaskOwnership = config.TaskOwnershipOff })
	task := streamTask(t, h, aliceKey)
	h.docs.Recorder().Reset()
	_, b := h.post("documents", bobKey, rpcBody("tasks/get", fmt.Sprintf(`{"id":%q}`, task)))
	if r := decodeRPC(t, b); r.Error != nil || h.calls() != 1 {
		t.Fatalf("with ownership off, bob's tasks/get should reach the agent: %s", b)
	}
}

// taskAgent is a v1.0 agent that answers SendMessage with a new task
// (wrapped, as v1.0 does), GetTask with it, and ListTasks with every task
// it has, whoever asks: an agent that keeps no principal apart.
type taskAgent struct {
	mu    sync.Mutex
	tasks []string
	calls map[string]int
}

func (a *taskAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID string `json:"id"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.calls == nil {
		a.calls = map[string]int{}
	}
	a.calls[req.Method]++
	var result string
	switch req.Method {
	case "SendMessage":
		id := fmt.Sprintf("task-%d", len(a.tasks)+1)
		a.tasks = append(a.tasks, id)
		result = fmt.Sprintf(`{"task":{"id":%q,"contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}}`, id)
	case "GetTask":
		result = fmt.Sprintf(`{"id":%q,"contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}`, req.Params.ID)
	case "ListTasks":
		var all []string
		for _, id := range a.tasks {
			all = append(all, fmt.Sprintf(`{"id":%q,"status":{"state":"TASK_STATE_SUBMITTED"}}`, id))
		}
		result = fmt.Sprintf(`{"tasks":[%s],"totalSize":%d,"nextPageToken":""}`, strings.Join(all, ","), len(all))
	default:
		result = `{}`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

func (a *taskAgent) count(method string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[method]
}

// startV1Task starts a task on the extra agent as key and returns its id.
func startV1Task(t *testing.T, h *harness, key string) string {
	t.Helper()
	_, b := h.post("extra", key, rpcBody("SendMessage", `{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"text":"hi"}]}}`))
	var r struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Result.Task.ID == "" {
		t.Fatalf("SendMessage: %s", b)
	}
	return r.Result.Task.ID
}

// listV1 lists the extra agent's tasks as key: the ids and the total.
func listV1(t *testing.T, h *harness, key string) ([]string, int) {
	t.Helper()
	_, b := h.post("extra", key, rpcBody("ListTasks", `{}`))
	var r struct {
		Result struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
			TotalSize int `json:"totalSize"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("ListTasks: %s", b)
	}
	var ids []string
	for _, tk := range r.Result.Tasks {
		ids = append(ids, tk.ID)
	}
	return ids, r.Result.TotalSize
}

// TestTaskListingFiltered checks that a listing keeps only the caller's
// tasks, and does not count the others', even from an agent that lists
// everyone's.
func TestTaskListingFiltered(t *testing.T) {
	agent := &taskAgent{}
	h := newHarness(t, agent, nil)
	a1, b1, a2 := startV1Task(t, h, aliceKey), startV1Task(t, h, bobKey), startV1Task(t, h, aliceKey)
	if ids, total := listV1(t, h, aliceKey); strings.Join(ids, ",") != a1+","+a2 || total != 2 {
		t.Errorf("alice lists %v (total %d), want [%s %s] (2)", ids, total, a1, a2)
	}
	if ids, total := listV1(t, h, bobKey); strings.Join(ids, ",") != b1 || total != 1 {
		t.Errorf("bob lists %v (total %d), want [%s] (1)", ids, total, b1)
	}
	if _, b := h.post("extra", bobKey, rpcBody("GetTask", fmt.Sprintf(`{"id":%q}`, a1))); string(b) != notFound {
		t.Errorf("bob's GetTask on alice's v1.0 task: %s", b)
	}
	if n := agent.count("GetTask"); n != 0 {
		t.Errorf("the agent saw %d GetTask calls, want none", n)
	}
}

// TestTaskIndexBound checks that limits.max_tasks bounds the in-memory
// index: the least recently used task is forgotten, and then refused
// (fail closed), while the newer ones are still their owner's.
func TestTaskIndexBound(t *testing.T) {
	agent := &taskAgent{}
	h := newHarness(t, agent, func(c *config.Config) { c.Limits.MaxTasks = 2 })
	ids := []string{startV1Task(t, h, aliceKey), startV1Task(t, h, aliceKey), startV1Task(t, h, aliceKey)}
	want := []string{notFound, "", ""}
	for i, id := range ids {
		_, b := h.post("extra", aliceKey, rpcBody("GetTask", fmt.Sprintf(`{"id":%q}`, id)))
		if refused := string(b) == notFound; refused != (want[i] != "") {
			t.Errorf("task %d of 3 with a bound of 2: got %s", i+1, b)
		}
	}
}

// TestReplicasShareTasks checks that two replicas sharing Redis learn each
// other's tasks: a task started through A is its owner's through B, and
// nobody else's.
func TestReplicasShareTasks(t *testing.T) {
	srv := redistest.Start(t)
	agent := &taskAgent{}
	mod := func(c *config.Config) {
		c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
			Timeout: config.Duration(replicaTimeout), MaxStaleness: config.Duration(2 * time.Second),
			AllowNoPersistence: true}
	}
	a := newHarnessWith(t, agent, mod, nil)
	b := newHarnessWith(t, agent, mod, func(*gateway.BuildOptions) {})
	task := startV1Task(t, a, aliceKey)
	if _, body := b.post("extra", bobKey, rpcBody("GetTask", fmt.Sprintf(`{"id":%q}`, task))); string(body) != notFound {
		t.Fatalf("bob's GetTask through B on alice's task from A: %s", body)
	}
	if n := agent.count("GetTask"); n != 0 {
		t.Fatalf("the agent saw %d GetTask calls, want none", n)
	}
	if _, body := b.post("extra", aliceKey, rpcBody("GetTask", fmt.Sprintf(`{"id":%q}`, task))); decodeRPC(t, body).Error != nil {
		t.Fatalf("alice's GetTask through B on her task from A: %s", body)
	}
	if ttl := srv.Client.TTL(t.Context(), "capgate:task:extra:"+task).Val(); ttl <= 0 || ttl > 24*time.Hour {
		t.Fatalf("the shared binding's TTL is %v, want within limits.task_ttl", ttl)
	}
}
