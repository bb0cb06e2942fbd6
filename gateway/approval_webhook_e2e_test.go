package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/config"
)

// TestApprovalWebhookToSlack: a gateway configured with a Slack webhook
// and a console address tells the channel of carol's waiting HR write, as
// a Slack message naming her, the purpose and the document by its title
// (never its real id), with a button to the request on the console.
func TestApprovalWebhookToSlack(t *testing.T) {
	got := make(chan []byte, 1)
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") == "application/json" {
			got <- b
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer slack.Close()
	h := newHarness(t, nil, func(c *config.Config) {
		c.Approvals = &approval.Config{Webhook: &approval.WebhookConfig{URL: slack.URL + "/services/T0/B0/secret", Format: approval.FormatSlack}}
		c.Console = &config.Console{PublicURL: "https://capgate-admin.example.com"}
	})
	id := h.pendingID(carolWritesHR)
	var body []byte
	select {
	case body = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the Slack webhook was never called")
	}
	var msg struct {
		Text   string
		Blocks []json.RawMessage
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Text == "" || len(msg.Blocks) == 0 {
		t.Fatalf("not a Slack message: %v: %s", err, body)
	}
	for _, want := range []string{"user:carol@example.com", "Fix the leave policy", "Salaries 2025", "needs approval by group security",
		`"url":"https://capgate-admin.example.com/console/approvals#` + id + `"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the message lacks %s: %s", want, body)
		}
	}
	if strings.Contains(string(body), "hr/salaries") || strings.Contains(string(body), "salaries-2025") {
		t.Errorf("the message names a real resource id: %s", body)
	}
}
