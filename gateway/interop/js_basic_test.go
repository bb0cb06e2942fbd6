package interop_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// stepErr is a failed step as client.mjs prints it.
type stepErr struct {
	Name    string         `json:"name"`
	Code    *int           `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// sendOut is a SendMessage result or stream event as client.mjs
// summarizes it.
type sendOut struct {
	Error    *stepErr         `json:"error"`
	Kind     string           `json:"kind"`
	TaskID   string           `json:"taskId"`
	State    any              `json:"state"` // a number (the SDK's TaskState)
	Artifact []map[string]any `json:"artifact"`
}

type basicOut struct {
	Error *stepErr `json:"error"`
	Card  struct {
		Error               *stepErr         `json:"error"`
		Name                string           `json:"name"`
		ProtocolVersion     string           `json:"protocolVersion"`
		SupportedInterfaces []map[string]any `json:"supportedInterfaces"`
		SecuritySchemes     map[string]any   `json:"securitySchemes"`
	} `json:"card"`
	Send   sendOut `json:"send"`
	Stream struct {
		Error  *stepErr  `json:"error"`
		Events []sendOut `json:"events"`
	} `json:"stream"`
	Get sendOut `json:"get"`
}

// taskCompleted is TASK_STATE_COMPLETED as the JS SDK reports it.
const taskCompleted = 3

// basicsNeed lists, per agent, what the gateway or the agent still lacks
// for a stock v1.0 JS client's send, stream and get to succeed.
var basicsNeed = map[string]string{
	sepAgent: "needs: the documents example agent to start a task (it answers v1.0 calls in v1.0 shape, with a message)",
}

// TestJSClientBasics drives the stock JS client, with default options,
// through the gateway to each kind of upstream: card resolution,
// SendMessage, SendStreamingMessage and GetTask.
func TestJSClientBasics(t *testing.T) {
	w := startWorld(t, true)
	for _, agent := range []string{v03Agent, sepAgent, v1Agent, bothAgent} {
		t.Run(agent, func(t *testing.T) {
			var out basicOut
			runClient(t, w.kit, "basic", map[string]any{"base": w.base(agent), "bearer": quickstart.AliceKey}, &out)
			if out.Error != nil {
				t.Fatalf("client failed: %+v", out.Error)
			}
			t.Run("card", func(t *testing.T) { checkCard(t, w, agent, out) })
			t.Run("send", func(t *testing.T) {
				skipIfNeeded(t, basicsNeed[agent])
				checkTask(t, out.Send, "hello")
			})
			t.Run("stream", func(t *testing.T) {
				skipIfNeeded(t, basicsNeed[agent])
				checkStream(t, out)
			})
			t.Run("get", func(t *testing.T) {
				skipIfNeeded(t, basicsNeed[agent])
				checkTask(t, out.Get, "hello")
				if out.Get.TaskID != out.Send.TaskID {
					t.Errorf("GetTask returned task %q, want %q", out.Get.TaskID, out.Send.TaskID)
				}
			})
		})
	}
}

func skipIfNeeded(t *testing.T, need string) {
	t.Helper()
	if need != "" {
		t.Skip(need)
	}
}

// checkCard asserts the card the SDK resolved: every interface points at
// the gateway, one is JSON-RPC at a version the upstream serves, and the
// card says how to authenticate.
func checkCard(t *testing.T, w *world, agent string, out basicOut) {
	t.Helper()
	c := out.Card
	if c.Error != nil {
		t.Fatalf("card resolution failed: %+v", c.Error)
	}
	want := w.URL + "/a2a/" + agent
	versions := map[string]bool{}
	for _, i := range c.SupportedInterfaces {
		if u, _ := i["url"].(string); strings.TrimSuffix(u, "/") != want {
			t.Errorf("interface url %q, want the gateway's %q", u, want)
		}
		if i["protocolBinding"] == "JSONRPC" {
			versions[fmt.Sprint(i["protocolVersion"])] = true
		}
	}
	wantVersions := map[string]map[string]bool{
		v03Agent: {"0.3": true, "1.0": true}, sepAgent: {"0.3": true, "1.0": true},
		v1Agent: {"1.0": true}, bothAgent: {"0.3": true, "1.0": true},
	}[agent]
	if !maps.Equal(versions, wantVersions) {
		t.Errorf("JSON-RPC interface versions %v, want %v", versions, wantVersions)
	}
	if len(c.SecuritySchemes) == 0 {
		t.Error("the served card declares no securitySchemes")
	}
}

// checkTask asserts a completed task whose artifact echoes text.
func checkTask(t *testing.T, s sendOut, text string) {
	t.Helper()
	if s.Error != nil {
		t.Fatalf("failed: %+v", s.Error)
	}
	if s.TaskID == "" || s.State != float64(taskCompleted) {
		t.Fatalf("want a completed task, got %+v", s)
	}
	if len(s.Artifact) != 1 || s.Artifact[0]["text"] != text {
		t.Errorf("artifact %v, want the agent's echo of %q", s.Artifact, text)
	}
}

// checkStream asserts the stream's events arrived in the agent's order.
func checkStream(t *testing.T, out basicOut) {
	t.Helper()
	if out.Stream.Error != nil {
		t.Fatalf("stream failed: %+v", out.Stream.Error)
	}
	var kinds []string
	for _, e := range out.Stream.Events {
		kinds = append(kinds, e.Kind)
	}
	want := []string{"task", "statusUpdate", "artifactUpdate", "statusUpdate"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("stream events %v, want %v", kinds, want)
	}
	if last := out.Stream.Events[3]; last.State != float64(taskCompleted) {
		t.Errorf("last event state %v, want completed", last.State)
	}
	if a := out.Stream.Events[2].Artifact; len(a) != 1 || a[0]["text"] != "stream me" {
		t.Errorf("artifact %v, want the echo of the streamed message", a)
	}
}
