package interop_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// capabilityExtensionURI is the capability-negotiation extension's URI.
const capabilityExtensionURI = "https://github.com/a2aproject/A2A/sep/capability-negotiation"

// echoExecutor turns every message into a task: submitted, working, one
// artifact echoing what the agent received, completed.
type echoExecutor struct{}

var _ a2asrv.AgentExecutor = echoExecutor{}

// Execute implements a2asrv.AgentExecutor.
func (echoExecutor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := ""
	for _, p := range rc.Message.Parts {
		if tp, ok := p.(a2a.TextPart); ok {
			text += tp.Text
		}
	}
	echo := map[string]any{"text": text, "messageMetadata": rc.Message.Metadata, "requestMetadata": rc.Metadata}
	final := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCompleted, nil)
	final.Final = true
	for _, ev := range []a2a.Event{
		a2a.NewSubmittedTask(rc, rc.Message),
		a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil),
		a2a.NewArtifactEvent(rc, a2a.DataPart{Data: echo}),
		final,
	} {
		if err := q.Write(ctx, ev); err != nil {
			return fmt.Errorf("echo agent: %w", err)
		}
	}
	return nil
}

// Cancel implements a2asrv.AgentExecutor.
func (echoExecutor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// startGoAgent starts a v0.3-only agent built on a2a-go with its default
// handler: JSON-RPC and its card, which declares protocolVersion 0.3.0
// and nothing newer.
func startGoAgent(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &a2a.AgentCard{
		Name: "go03", Description: "A stock a2a-go agent that echoes what it receives.",
		URL: srv.URL + "/", PreferredTransport: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0",
		Version: "1.0.0", DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"application/json"},
		Capabilities: a2a.AgentCapabilities{Streaming: true, Extensions: []a2a.AgentExtension{{URI: capabilityExtensionURI}}},
		Skills:       []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "Echoes the message", Tags: []string{"echo"}}},
	}
	mux.Handle("GET /.well-known/", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("POST /", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echoExecutor{})))
	return strings.TrimSuffix(srv.URL, "/") + "/"
}
