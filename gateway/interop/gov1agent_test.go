package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	a2av1 "github.com/a2aproject/a2a-go/v2/a2a"
	srvv1 "github.com/a2aproject/a2a-go/v2/a2asrv"
	pushv1 "github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// holdText is the message text that makes the a2a-go/v2 agent keep its
// task working until it is canceled.
const holdText = "hold"

// v1EchoExecutor is the a2a-go/v2 agent's executor: every message becomes
// a task (submitted, working, one artifact echoing what the agent
// received, completed), or, for holdText, a task that stays working until
// it is canceled.
type v1EchoExecutor struct {
	mu   sync.Mutex
	held map[a2av1.TaskID]chan struct{}
}

var _ srvv1.AgentExecutor = (*v1EchoExecutor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (e *v1EchoExecutor) Execute(ctx context.Context, ec *srvv1.ExecutorContext) iter.Seq2[a2av1.Event, error] {
	return func(yield func(a2av1.Event, error) bool) {
		text := ""
		for _, p := range ec.Message.Parts {
			text += p.Text()
		}
		if !yield(a2av1.NewSubmittedTask(ec, ec.Message), nil) || !yield(a2av1.NewStatusUpdateEvent(ec, a2av1.TaskStateWorking, nil), nil) {
			return
		}
		if text == holdText {
			select {
			case <-ctx.Done():
			case <-e.release(ec.TaskID):
			}
			return
		}
		echo := map[string]any{"text": text, "messageMetadata": ec.Message.Metadata, "requestMetadata": ec.Metadata}
		if yield(a2av1.NewArtifactEvent(ec, a2av1.NewDataPart(echo)), nil) {
			yield(a2av1.NewStatusUpdateEvent(ec, a2av1.TaskStateCompleted, nil), nil)
		}
	}
}

// Cancel implements a2asrv.AgentExecutor: the task is canceled, and a
// held execution is released.
func (e *v1EchoExecutor) Cancel(_ context.Context, ec *srvv1.ExecutorContext) iter.Seq2[a2av1.Event, error] {
	return func(yield func(a2av1.Event, error) bool) {
		e.mu.Lock()
		ch := e.held[ec.TaskID]
		delete(e.held, ec.TaskID)
		e.mu.Unlock()
		if ch != nil {
			close(ch)
		}
		yield(a2av1.NewStatusUpdateEvent(ec, a2av1.TaskStateCanceled, nil), nil)
	}
}

// release is the channel closed when task is canceled.
func (e *v1EchoExecutor) release(task a2av1.TaskID) chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held == nil {
		e.held = map[a2av1.TaskID]chan struct{}{}
	}
	ch, ok := e.held[task]
	if !ok {
		ch = make(chan struct{})
		e.held[task] = ch
	}
	return ch
}

// v1GoAgent is a running a2a-go/v2 agent: its URL, and the JSON-RPC
// methods it received, in order, with their bodies.
type v1GoAgent struct {
	URL    string
	mu     sync.Mutex
	calls  []string
	bodies []string
}

// received returns the bodies of the JSON-RPC calls the agent received.
func (a *v1GoAgent) received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.bodies...)
}

// methods returns the JSON-RPC methods the agent received.
func (a *v1GoAgent) methods() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

// startV1GoAgent starts a v1.0-only agent built on a2a-go/v2 with its
// default JSON-RPC handler and card handler, and the SDK's in-memory
// push config store and HTTP push sender: the card lists one JSON-RPC
// interface of protocol version 1.0 and declares push notifications and
// the capability extension.
func startV1GoAgent(t *testing.T) *v1GoAgent {
	t.Helper()
	a := &v1GoAgent{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.URL = strings.TrimSuffix(srv.URL, "/") + "/"
	card := &a2av1.AgentCard{
		Name: "gov1", Description: "A stock a2a-go/v2 agent that echoes what it receives.", Version: "1.0.0",
		SupportedInterfaces: []*a2av1.AgentInterface{a2av1.NewAgentInterface(a.URL, a2av1.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"application/json"},
		Capabilities: a2av1.AgentCapabilities{Streaming: true, PushNotifications: true,
			Extensions: []a2av1.AgentExtension{{URI: capabilityExtensionURI}}},
		Skills: []a2av1.AgentSkill{{ID: "echo", Name: "echo", Description: "Echoes the message", Tags: []string{"echo"}}},
	}
	// The SDK's push sender refuses loopback and private addresses.
	rpc := srvv1.NewJSONRPCHandler(srvv1.NewHandler(&v1EchoExecutor{},
		srvv1.WithPushNotifications(pushv1.NewInMemoryStore(), pushv1.NewHTTPPushSender(nil))))
	mux.Handle("GET /.well-known/", srvv1.NewStaticAgentCardHandler(card))
	mux.Handle("POST /", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		a.mu.Lock()
		a.calls, a.bodies = append(a.calls, req.Method), append(a.bodies, string(body))
		a.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		rpc.ServeHTTP(w, r)
	}))
	return a
}
