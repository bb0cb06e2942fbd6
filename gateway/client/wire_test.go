package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/client"
)

// messageID matches the random message ids Delegate generates.
var messageID = regexp.MustCompile(`"msg-[A-Z2-7]{26}"`)

// TestWireShapes pins, with golden files, the exact JSON-RPC request each
// method sends: the shapes the gateway's sep_wire.go decodes.
// wireCase is one call whose request body is pinned by a golden file.
type wireCase struct {
	name   string
	answer any
	call   func(*client.Client) error
}

func wireCases() []wireCase {
	expires := time.Date(2025, 1, 9, 12, 30, 0, 0, time.FixedZone("CET", 3600))
	tests := []wireCase{
		{"request_full", map[string]any{"capabilities": []any{issued("cap_1")}}, func(c *client.Client) error {
			_, err := c.Request(context.Background(), client.RequestParams{
				Grants: []string{"documents:read"}, Purpose: "Summarize quarterly reports",
				ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}},
				Operations:    []string{"retrieve"}, Expires: expires,
			})
			return err
		}},
		{"request_minimal", map[string]any{"capabilities": []any{issued("cap_1")}}, func(c *client.Client) error {
			_, err := c.Request(context.Background(), client.RequestParams{Grants: []string{"documents:read"}})
			return err
		}},
		{"invoke", map[string]any{"title": "Q1"}, func(c *client.Client) error {
			_, err := c.Invoke(context.Background(), testCap(), "retrieve_document", map[string]any{"resourceHandle": "rh_1"})
			return err
		}},
		{"invoke_nil_args", map[string]any{"documents": []any{}}, func(c *client.Client) error {
			_, err := c.Invoke(context.Background(), client.Capability{ID: "cap_by_id"}, "list_documents", nil)
			return err
		}},
		{"attenuate", map[string]any{"capabilities": []any{issued("cap_child")}}, func(c *client.Client) error {
			_, err := c.Attenuate(context.Background(), testCap(), client.Constraints{
				ResourceHandles: []string{"rh_1"}, Operations: []string{"retrieve"}, Expires: expires,
			})
			return err
		}},
		{"revoke", map[string]any{"revoked": true, "capabilityId": "cap_parent", "revocationId": "rv_1"}, func(c *client.Client) error {
			return c.Revoke(context.Background(), testCap())
		}},
	}
	for _, m := range []string{"", client.MethodSendMessage, client.MethodTasksSend, client.MethodTaskSend} {
		name := "delegate_" + map[string]string{"": "default", client.MethodSendMessage: "SendMessage",
			client.MethodTasksSend: "tasks_send", client.MethodTaskSend: "a2a_task_send"}[m]
		tests = append(tests, wireCase{name, map[string]any{"kind": "message"}, func(c *client.Client) error {
			_, err := c.Delegate(context.Background(), client.Delegation{
				Method: m, Text: "Summarize this document", Capabilities: []client.Capability{testCap()},
				Attenuations: map[string]client.Constraints{"cap_parent": {Operations: []string{"retrieve"}, Expires: expires}},
			})
			return err
		}})
	}
	return tests
}

func TestWireShapes(t *testing.T) {
	for _, tt := range wireCases() {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGateway(t, result(tt.answer))
			c := newClient(t, g.srv.URL, client.Options{Credential: "alice-dev-key"})
			if err := tt.call(c); err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := g.requests()
			if len(reqs) != 1 {
				t.Fatalf("gateway got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Path != "/a2a/documents" || r.Header.Get("Authorization") != "Bearer alice-dev-key" ||
				r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("path %q, headers %v", r.Path, r.Header)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, messageID.ReplaceAll(r.Body, []byte(`"msg-RANDOM"`)), "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden(t, "wire/"+tt.name+".json", pretty.Bytes())
		})
	}
}

// TestDecodesIssuanceShape decodes the SEP's own issuance example.
func TestDecodesIssuanceShape(t *testing.T) {
	sep := `{"jsonrpc":"2.0","id":1,"result":{"capabilities":[{"id":"cap_7f3a9b","grant":"documents:read",` +
		`"token":"<opaque-capability-token>","resourceHandles":[{"handle":"rh_001","displayName":"Q1 Financial Summary"},` +
		`{"handle":"rh_002","displayName":"Q1 Sales Report"}],"operations":["retrieve","search"],` +
		`"expires":"2025-01-09T13:00:00Z","revocationId":"rv_abc123","principal":"user:alice@example.com"}]}}`
	g := newFakeGateway(t, raw(200, sep))
	caps, err := newClient(t, g.srv.URL, client.Options{}).Request(context.Background(), client.RequestParams{Grants: []string{"documents:read"}})
	if err != nil {
		t.Fatal(err)
	}
	c := caps[0]
	h, ok := c.Handle("Q1 Sales Report")
	if len(caps) != 1 || c.ID != "cap_7f3a9b" || c.Token != "<opaque-capability-token>" || !ok || h != "rh_002" ||
		!c.Expires.Equal(time.Date(2025, 1, 9, 13, 0, 0, 0, time.UTC)) || c.RevocationID != "rv_abc123" ||
		len(c.Handles()) != 2 || c.Principal != "user:alice@example.com" {
		t.Errorf("decoded %#v", caps)
	}
	if _, ok := c.Handle("no such document"); ok {
		t.Error("Handle found a display name that is not there")
	}
	if g.requests()[0].Header.Get("Authorization") != "" {
		t.Error("an Authorization header was sent without a credential")
	}
}
