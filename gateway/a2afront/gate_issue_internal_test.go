package a2afront

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// TestWholeAgentAndNoResolver: a whole-agent grant issues a capability
// naming no resources, without asking the agent anything, and never
// wider than asked or allowed; an agent that can resolve nothing gets a
// documented grant_denied, not an internal error.
func TestWholeAgentAndNoResolver(t *testing.T) {
	fx := newGatedFixture(t)
	tests := []struct {
		name, key, agent, grants, query string
		want                            int
		detail                          string
	}{
		{"whole agent", aliceKey, "plain", `["plain:use"]`, "", 0, ""},
		{"whole agent with a query", aliceKey, "plain", `["plain:use"]`, `{"collection":"team"}`, jsonrpc.CodeGrantDenied, ""},
		{"whole agent under a resource rule", bobKey, "plain", `["plain:use"]`, "", jsonrpc.CodeGrantDenied, ""},
		{"no resolver", aliceKey, "noresolve", `["docs:read"]`, "", jsonrpc.CodeGrantDenied, "no_resolver"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fx.upstream.calls(sep.MethodResolve))
			caps, e := fx.request(t, tt.key, tt.agent, tt.grants, tt.query)
			if tt.want != 0 {
				if e == nil || e.Code != tt.want {
					t.Fatalf("got %+v, %+v; want code %d", caps, e, tt.want)
				}
				data, _ := e.Data.(map[string]any)
				if tt.detail != "" && data["detail"] != tt.detail {
					t.Errorf("data %v, want detail %s", e.Data, tt.detail)
				}
				return
			}
			if e != nil || len(caps) != 1 || len(caps[0].ResourceHandles) != 0 {
				t.Fatalf("got %+v, %+v", caps, e)
			}
			if n := len(fx.upstream.calls(sep.MethodResolve)); n != before {
				t.Errorf("a whole-agent issuance asked the agent to resolve")
			}
			_, body := fx.post(t, aliceKey, "plain", sendBody("message/send", "hello", `{"capabilityId":"`+caps[0].ID+`"}`), nil)
			if errorCode(t, body) != 0 {
				t.Errorf("a message with the whole-agent capability was refused: %s", body)
			}
		})
	}
}

// TestUnmappedIDsRefused: an agent configured to refuse answers naming a
// resource outside the caller's capability has them refused.
func TestUnmappedIDsRefused(t *testing.T) {
	cfg := strings.Replace(gatedConfig, "messages: {require_capability: true, operation: read, agent_enforces_operations: true}",
		"messages: {require_capability: true, operation: read, agent_enforces_operations: true}\n    unmapped_ids: refuse", 1)
	fx := newFixtureWith(t, cfg, []byte(gatedPolicy), gatedCatalog(), &recorder{answer: echoAgent})
	alice, h := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	_, body := fx.post(t, aliceKey, "notes", sendBody("message/send", "read "+h["Team standup"], `{"capabilityId":"`+alice.ID+`"}`), nil)
	if errorCode(t, body) != jsonrpc.CodeResourceNotPermitted {
		t.Errorf("answer naming notes/alice-diary: %s", body)
	}
	assertNoRealIDs(t, body)
}

// TestRevocationEndsAStream: a stream scoped to a capability re-checks it
// at every event, so a revocation ends the stream at its next event.
func TestRevocationEndsAStream(t *testing.T) {
	next := make(chan struct{})
	stream := func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage, body []byte) bool {
		if method != "message/stream" {
			return echoAgent(w, r, method, id, body)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 2 {
			if i == 1 {
				<-next
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"task-1\",\"contextId\":\"c\",\"status\":{\"state\":\"working\"},\"final\":false}}\n\n", id)
			w.(http.Flusher).Flush()
		}
		return true
	}
	fx := newFixtureWith(t, gatedConfig, []byte(gatedPolicy), gatedCatalog(), &recorder{answer: stream})
	alice, _ := notesCapability(t, fx, aliceKey, `["notes:read"]`)
	r := chi.NewRouter()
	fx.front.Mount(r)
	gw := httptest.NewServer(r)
	defer gw.Close()
	req, _ := http.NewRequest(http.MethodPost, gw.URL+"/a2a/notes",
		strings.NewReader(sendBody("message/stream", "watch", `{"capabilityId":"`+alice.ID+`"}`)))
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	first, err := events.ReadString('\n')
	if err != nil || !strings.Contains(first, "working") {
		t.Fatalf("first event %q, %v", first, err)
	}
	if err := fx.revocations.Revoke(context.Background(), alice.RevocationID, fx.now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	close(next)
	rest, _ := io.ReadAll(events)
	if !strings.Contains(string(rest), fmt.Sprint(jsonrpc.CodeCapabilityRevoked)) || strings.Contains(string(rest), "working") {
		t.Errorf("stream after revocation: %s", rest)
	}
}

// TestInvokeAnswerMapped: an invocation's answer names the resources by
// the caller's handles, never by the ids the gateway substituted.
func TestInvokeAnswerMapped(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage, body []byte) bool {
		if method != jsonrpc.MethodSkillInvoke {
			return false
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"reports/q1-financial","text":"see reports/q1-sales and reports/q1-financial."}}`, id)
		return true
	}
	data, err := readQuickstartPolicy()
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixtureWith(t, fixtureConfig, data, quickstartCatalog(), &recorder{answer: echo})
	capb := fx.issue(t)
	_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":3,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":"`+
		capb.ID+`","arguments":{"resourceHandle":"`+capb.ResourceHandles[0].Handle+`"}}}`, nil)
	if strings.Contains(body, "reports/") {
		t.Errorf("the caller saw a real id: %s", body)
	}
	for _, h := range capb.ResourceHandles {
		if !strings.Contains(body, h.Handle) {
			t.Errorf("answer lacks handle %s: %s", h.Handle, body)
		}
	}
}
