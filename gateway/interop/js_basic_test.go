package interop_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
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
	Error    *stepErr `json:"error"`
	Kind     string   `json:"kind"`
	TaskID   string   `json:"taskId"`
	State    any      `json:"state"`    // a number (the SDK's TaskState)
	Artifact []any    `json:"artifact"` // each part's content value
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
	Send   sendOut   `json:"send"`
	Stream streamOut `json:"stream"`
	Get    sendOut   `json:"get"`
}

// streamOut is a stream's events as client.mjs summarizes them.
type streamOut struct {
	Error  *stepErr  `json:"error"`
	Events []sendOut `json:"events"`
}

// taskCompleted is TASK_STATE_COMPLETED as the JS SDK reports it.
const taskCompleted = 3

// TestJSClientBasics drives the stock JS client, with default options,
// through the gateway to each kind of upstream: card resolution,
// SendMessage, SendStreamingMessage and GetTask.
func TestJSClientBasics(t *testing.T) {
	w := startWorld(t, true)
	for _, agent := range []string{v03Agent, sepAgent, v1Agent, bothAgent, goV1Agent} {
		t.Run(agent, func(t *testing.T) {
			var out basicOut
			runClient(t, w.kit, "basic", map[string]any{"base": w.base(agent), "bearer": quickstart.AliceKey}, &out)
			if out.Error != nil {
				t.Fatalf("client failed: %+v", out.Error)
			}
			t.Run("card", func(t *testing.T) { checkCard(t, w, agent, out) })
			checkBasics(t, agent, out)
		})
	}
}

// checkBasics asserts the send, stream and get steps of the basic
// scenario: each answered with the agent's completed task.
func checkBasics(t *testing.T, agent string, out basicOut) {
	t.Run("send", func(t *testing.T) { checkTask(t, agent, out.Send, "hello") })
	t.Run("stream", func(t *testing.T) { checkStream(t, agent, out) })
	t.Run("get", func(t *testing.T) {
		checkTask(t, agent, out.Get, "hello")
		if out.Get.TaskID != out.Send.TaskID {
			t.Errorf("GetTask returned task %q, want %q", out.Get.TaskID, out.Send.TaskID)
		}
	})
}

// echoes reports whether an artifact is agent's answer to text: the
// echo agents' data part holding the text they received, or the
// documents agent's description of itself.
func echoes(agent string, artifact []any, text string) bool {
	if len(artifact) != 1 {
		return false
	}
	if agent == sepAgent {
		return artifact[0] == documents.Description
	}
	m, _ := artifact[0].(map[string]any)
	return m["text"] == text
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
		v1Agent: {"0.3": true, "1.0": true}, bothAgent: {"0.3": true, "1.0": true}, goV1Agent: {"0.3": true, "1.0": true},
	}[agent]
	if !maps.Equal(versions, wantVersions) {
		t.Errorf("JSON-RPC interface versions %v, want %v", versions, wantVersions)
	}
	// The v0.3 interface of a v1.0-only agent is for v0.3 clients: the
	// v1.0 client speaks the agent's own version, untranslated.
	if (agent == v1Agent || agent == goV1Agent) && c.ProtocolVersion != "1.0" {
		t.Errorf("the client speaks %q to a v1.0 agent, want 1.0", c.ProtocolVersion)
	}
	if len(c.SecuritySchemes) == 0 {
		t.Error("the served card declares no securitySchemes")
	}
}

// checkTask asserts a completed task whose artifact answers text.
func checkTask(t *testing.T, agent string, s sendOut, text string) {
	t.Helper()
	if s.Error != nil {
		t.Fatalf("failed: %+v", s.Error)
	}
	if s.Kind == "message" || s.TaskID == "" || s.State != float64(taskCompleted) {
		t.Fatalf("want a completed task, got %+v", s)
	}
	if !echoes(agent, s.Artifact, text) {
		t.Errorf("artifact %v, want the agent's answer to %q", s.Artifact, text)
	}
}

// checkStream asserts the stream's events arrived in the agent's order:
// the task, working, the artifact, completed.
func checkStream(t *testing.T, agent string, out basicOut) {
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
	if a := out.Stream.Events[2].Artifact; !echoes(agent, a, "stream me") {
		t.Errorf("artifact %v, want the agent's answer to the streamed message", a)
	}
}
