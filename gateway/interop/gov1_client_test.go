package interop_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	a2av03 "github.com/a2aproject/a2a-go/a2a"
	a2av1 "github.com/a2aproject/a2a-go/v2/a2a"
	clientv1 "github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	capagentcard "github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// v1Send is a SendMessage request whose message carries text and, when ext
// is not nil, ext under the capability extension's URI in its metadata.
func v1Send(text string, ext map[string]any) *a2av1.SendMessageRequest {
	msg := a2av1.NewMessage(a2av1.MessageRoleUser, a2av1.NewTextPart(text))
	if ext != nil {
		msg.Metadata = map[string]any{capagentcard.ExtensionURI: ext}
	}
	return &a2av1.SendMessageRequest{Message: msg}
}

// v1Refusal is what an a2a-go/v2 application reads of a refusal: the
// SDK's *a2a.Error, whose ErrorInfo metadata carries capgate's code and
// reason (the SDK itself maps a code it does not know to an internal
// error).
func v1Refusal(t *testing.T, err error) (code int, reason string) {
	t.Helper()
	var ae *a2av1.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want an *a2a.Error, got %T: %v", err, err)
	}
	meta, _ := ae.ErrorInfo().Value["metadata"].(map[string]string)
	code, _ = strconv.Atoi(meta["code"])
	return code, meta["reason"]
}

// TestGoV1Client drives a stock a2a-go/v2 client (A2A v1.0) through the
// gateway to the v0.3-only a2a-go agent, which the gateway serves to v1.0
// callers by translation, and to the stock a2a-go/v2 agent:
// SendMessage, SendStreamingMessage and GetTask.
func TestGoV1Client(t *testing.T) {
	w := startWorld(t, false)
	for _, agent := range []string{v03Agent, goV1Agent} {
		t.Run(agent, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, ctx := goV1ClientFor(ctx, t, w, agent)
			checkGoV1Calls(ctx, t, c)
		})
	}
}

// checkGoV1Calls drives an a2a-go/v2 client through SendMessage,
// SendStreamingMessage and GetTask to an echo agent: a completed task
// with the echo, the stream's events in order, and the same task read
// back.
func checkGoV1Calls(ctx context.Context, t *testing.T, c *clientv1.Client) {
	t.Helper()
	res, err := c.SendMessage(ctx, v1Send("hello", nil))
	task, ok := res.(*a2av1.Task)
	if err != nil || !ok || task.Status.State != a2av1.TaskStateCompleted {
		t.Fatalf("SendMessage: want a completed task, got %#v, %v", res, err)
	}
	checkV1Echo(t, task.Artifacts, "hello")
	var kinds []string
	for ev, err := range c.SendStreamingMessage(ctx, v1Send("stream me", nil)) {
		if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
		kinds = append(kinds, v1EventKind(ev))
	}
	if want := "task status artifact status"; strings.Join(kinds, " ") != want {
		t.Errorf("SendStreamingMessage events %q, want %q", strings.Join(kinds, " "), want)
	}
	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{ID: task.ID})
	if err != nil || got.ID != task.ID || got.Status.State != a2av1.TaskStateCompleted {
		t.Fatalf("GetTask: got %+v, %v; want %s completed", got, err, task.ID)
	}
	checkV1Echo(t, got.Artifacts, "hello")
}

// sends counts the messages the notes agent received, in either method.
func sends(w *world) int {
	return w.Notes.Recorder.CountRPC("message/send") + w.Notes.Recorder.CountRPC("message/stream")
}

func v1EventKind(ev a2av1.Event) string {
	switch ev.(type) {
	case *a2av1.Task:
		return "task"
	case *a2av1.TaskStatusUpdateEvent:
		return "status"
	case *a2av1.TaskArtifactUpdateEvent:
		return "artifact"
	case *a2av1.Message:
		return "message"
	}
	return "unknown"
}

// TestGoV1Refusals: each capability refusal reaches an a2a-go/v2
// application with capgate's code and reason, for a unary call and for a
// stream, and the agent receives nothing: at the quickstart's notes agent
// (gated messaging: every message must present a capability within which
// the skill it names falls), and at the stock a2a-go/v2 agent standing in
// for it.
func TestGoV1Refusals(t *testing.T) {
	t.Run("notes", func(t *testing.T) {
		w := startWorld(t, false)
		checkV1Refusals(t, w, func() int { return sends(w) })
	})
	t.Run("a2a-go/v2 agent as notes", func(t *testing.T) {
		w, agent := startV1NotesWorld(t, false)
		checkV1Refusals(t, w, func() int { return len(agent.methods()) })
	})
}

// checkV1Refusals sends, with a stock a2a-go/v2 client, a message to
// notes that each capability check refuses, unary and streamed; received
// counts the messages the agent got.
func checkV1Refusals(t *testing.T, w *world, received func() int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	notes, nctx := goV1ClientFor(ctx, t, w, "notes")
	tests := refusalCases(issueNotes(ctx, t, w))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := notes.SendMessage(nctx, v1Send(tt.text, tt.ext))
			if code, reason := v1Refusal(t, err); code != tt.code || reason != tt.reason {
				t.Errorf("SendMessage: the application read %d %s, want %d %s (%v)", code, reason, tt.code, tt.reason, err)
			}
			var streamErr error
			for _, err := range notes.SendStreamingMessage(nctx, v1Send(tt.text, tt.ext)) {
				if err != nil {
					streamErr = err
					break
				}
			}
			if streamErr == nil {
				t.Fatal("SendStreamingMessage: the stream ended without the refusal")
			}
			if code, reason := v1Refusal(t, streamErr); code != tt.code || reason != tt.reason {
				t.Errorf("SendStreamingMessage: the application read %d %s, want %d %s (%v)", code, reason, tt.code, tt.reason, streamErr)
			}
		})
	}
	if n := received(); n != 0 {
		t.Errorf("the agent received %d refused call(s)", n)
	}
}

// startV1NotesWorld starts a world in which the a2a-go/v2 agent stands as
// the quickstart's gated notes agent; it returns the world and the agent.
func startV1NotesWorld(t *testing.T, withJS bool) (*world, *v1GoAgent) {
	t.Helper()
	agent := startV1GoAgent(t)
	w := startWorldWith(t, withJS, func(a *config.Agent) {
		if a.Name == "notes" {
			a.URL = agent.URL
		}
	})
	return w, agent
}

// aliceReports is alice's capability for the quarterly reports, issued
// by the documents agent's gateway through the gateway's Go client.
func aliceReports(ctx context.Context, t *testing.T, w *world) client.Capability {
	t.Helper()
	gc, err := client.New(w.URL, sepAgent, client.Options{Credential: quickstart.AliceKey})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := gc.Request(ctx, client.RequestParams{Grants: []string{"documents:read"}, Purpose: "Summarize quarterly reports",
		ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}}})
	if err != nil || len(caps) == 0 {
		t.Fatalf("capability request: %v", err)
	}
	return caps[0]
}

// notesCaps are capabilities for the notes agent that its gate refuses
// in a message: alice's read-only one, one of alice's revoked, and bob's.
type notesCaps struct{ readOnly, revoked, bobs client.Capability }

// issueNotes issues notesCaps through the gateway's Go client.
func issueNotes(ctx context.Context, t *testing.T, w *world) notesCaps {
	t.Helper()
	issue := func(key, collection string) client.Capability {
		gc, err := client.New(w.URL, "notes", client.Options{Credential: key})
		if err != nil {
			t.Fatal(err)
		}
		caps, err := gc.Request(ctx, client.RequestParams{Grants: []string{"notes:read"}, ResourceQuery: &client.ResourceQuery{Collection: collection}})
		if err != nil || len(caps) == 0 {
			t.Fatalf("capability request: %v", err)
		}
		return caps[0]
	}
	c := notesCaps{issue(quickstart.AliceKey, "personal"), issue(quickstart.AliceKey, "personal"), issue(quickstart.BobKey, "team")}
	gc, _ := client.New(w.URL, "notes", client.Options{Credential: quickstart.AliceKey})
	if err := gc.Revoke(ctx, c.revoked); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	return c
}

// refusalCase is a message to the notes agent that its gate refuses: its
// text, the extension data in its metadata, and the refusal.
type refusalCase struct {
	name, text string
	ext        map[string]any
	code       int
	reason     string
}

// refusalCases are the messages each capability check refuses.
func refusalCases(c notesCaps) []refusalCase {
	const text = "read my notes"
	return []refusalCase{
		{"no capability", text, nil, jsonrpc.CodeCapabilityRequired, jsonrpc.ReasonCapabilityRequired},
		{"unknown capability", text, map[string]any{"capabilityId": "cap_unknown", "skill": "notes.read"}, jsonrpc.CodeCapabilityInvalid, jsonrpc.ReasonCapabilityInvalid},
		{"revoked capability", text, map[string]any{"capabilityId": c.revoked.ID, "skill": "notes.read"}, jsonrpc.CodeCapabilityRevoked, jsonrpc.ReasonCapabilityRevoked},
		{"operation outside the capability", text, map[string]any{"capabilityId": c.readOnly.ID, "skill": "notes.write"}, jsonrpc.CodeOperationNotPermitted, jsonrpc.ReasonOperationNotPermitted},
		{"resource outside the capability", "read rh_AAAAAAAAAAAAAAAAAAAAAA", map[string]any{"capabilityId": c.readOnly.ID, "skill": "notes.read"}, jsonrpc.CodeResourceNotPermitted, jsonrpc.ReasonResourceNotPermitted},
		{"someone else's capability", text, map[string]any{"capabilityId": c.bobs.ID, "skill": "notes.read"}, jsonrpc.CodeHolderMismatch, jsonrpc.ReasonHolderMismatch},
	}
}

// TestGoV03StreamRefusal: a stock a2a-go v0.3 client sees a refused
// message/stream as an error carrying capgate's reason in the a2a.Error's
// details, where the stream used to end as if nothing had happened.
func TestGoV03StreamRefusal(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	notes, nctx := goClientFor(ctx, t, w, "notes")
	var streamErr error
	for _, err := range notes.SendStreamingMessage(nctx, &a2av03.MessageSendParams{Message: a2av03.NewMessage(a2av03.MessageRoleUser, a2av03.TextPart{Text: "read my notes"})}) {
		if err != nil {
			streamErr = err
			break
		}
	}
	var ae *a2av03.Error
	if !errors.As(streamErr, &ae) || ae.Details["reason"] != jsonrpc.ReasonCapabilityRequired {
		t.Fatalf("message/stream: want an a2a.Error with reason capability_required, got %T %v", streamErr, streamErr)
	}
	if n := sends(w); n != 0 {
		t.Errorf("the notes agent received %d refused call(s)", n)
	}
}
