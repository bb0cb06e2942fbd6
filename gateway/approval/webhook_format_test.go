package approval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
)

// waiting is a fixed request waiting for approval: two grants, the second
// asking for it, one resource with a real id.
func waiting() approval.Request {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	r := sample()
	r.ID, r.Status, r.CreatedAt, r.Deadline = "apr_golden", approval.StatusPending, at, at.Add(time.Hour)
	r.Grants = append([]approval.Grant{{Grant: "documents:read", Rule: "carol-hr-read", Operations: []string{"retrieve", "list"},
		Resources: r.Grants[0].Resources, TTL: 15 * time.Minute}}, r.Grants...)
	r.ActionHash = r.ComputeActionHash()
	return r
}

// deliver notifies one request through a webhook of format and returns
// what the receiver got.
func deliver(t *testing.T, cfg approval.WebhookConfig, consoleURL string, r approval.Request) *receiver {
	t.Helper()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	cfg.URL = srv.URL
	hook, err := approval.NewWebhook(cfg, approval.WebhookOptions{Runtime: platform.Runtime{Getenv: env}, ConsoleURL: consoleURL})
	if err != nil {
		t.Fatal(err)
	}
	hook.Notify(context.Background(), r)
	_ = hook.Close()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.calls != 1 {
		t.Fatalf("%d deliveries", rc.calls)
	}
	return rc
}

// TestWebhookFormats pins each format's body, checks that the chat
// formats name the requester, the purpose, what is asked (display names
// only) and link to the request on the console, and that the signature
// is sent when a secret is configured (always, for generic).
func TestWebhookFormats(t *testing.T) {
	const console = "https://capgate-admin.example.com/"
	tests := []struct {
		golden, format, secret, console string
		signed                          bool
	}{
		{"webhook_generic.golden", "", "HOOK_SECRET", console, true},
		{"webhook_slack.golden", "slack", "", console, false},
		{"webhook_slack_nolink.golden", "slack", "", "", false},
		{"webhook_teams.golden", "teams", "", console, false},
		{"webhook_teams_nolink.golden", "teams", "", "", false},
		{"webhook_teams_signed.golden", "teams", "HOOK_SECRET", console, true},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			rc := deliver(t, approval.WebhookConfig{Format: tc.format, SecretEnv: tc.secret}, tc.console, waiting())
			if got := approval.Verify([]byte(hookSecret), rc.ts, rc.body, rc.sig); got != tc.signed || (rc.sig != "") != tc.signed {
				t.Errorf("signed %v (%q), want %v", got, rc.sig, tc.signed)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, rc.body, "", "  "); err != nil {
				t.Fatalf("not JSON: %v: %s", err, rc.body)
			}
			golden(t, tc.golden, append(pretty.Bytes(), '\n'))
			if strings.Contains(string(rc.body), "doc-9") {
				t.Error("the notification names a real resource id")
			}
			if tc.format == "" {
				return
			}
			for _, want := range []string{"user:carol@example.com", "fix the hr handbook", "HR handbook", "documents:write: write on HR handbook, for 15 min (needs approval by group security)",
				"documents:read: retrieve, list on HR handbook, for 15 min", waiting().ActionHash, "apr_golden"} {
				if !strings.Contains(string(rc.body), want) {
					t.Errorf("the message lacks %q", want)
				}
			}
			link := "https://capgate-admin.example.com/console/approvals#apr_golden"
			if tc.console != "" && !strings.Contains(string(rc.body), `"url":"`+link+`"`) {
				t.Errorf("no link to %s", link)
			}
			if tc.console == "" && !strings.Contains(string(rc.body), "capgate approvals approve apr_golden") {
				t.Error("without a console, the message does not say how to decide")
			}
		})
	}
}

// TestWebhookChatShapes reads each chat format as its tool does: a Slack
// message (text and blocks) and a Teams message with one Adaptive Card.
func TestWebhookChatShapes(t *testing.T) {
	var slack struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(deliver(t, approval.WebhookConfig{Format: "slack"}, "https://c.example.com", waiting()).body, &slack); err != nil ||
		slack.Text == "" || len(slack.Blocks) < 4 || slack.Blocks[0].Type != "header" || slack.Blocks[len(slack.Blocks)-1].Type != "actions" {
		t.Fatalf("not a Slack message: %+v %v", slack, err)
	}
	var teams struct {
		Type        string `json:"type"`
		Attachments []struct {
			ContentType string `json:"contentType"`
			Content     struct {
				Type, Version string
				Body          []map[string]any
				Actions       []struct{ Type, Title, URL string }
			} `json:"content"`
		} `json:"attachments"`
	}
	if err := json.Unmarshal(deliver(t, approval.WebhookConfig{Format: "teams"}, "https://c.example.com", waiting()).body, &teams); err != nil ||
		teams.Type != "message" || len(teams.Attachments) != 1 || teams.Attachments[0].ContentType != "application/vnd.microsoft.card.adaptive" {
		t.Fatalf("not a Teams message: %+v %v", teams, err)
	}
	card := teams.Attachments[0].Content
	if card.Type != "AdaptiveCard" || card.Version != "1.4" || len(card.Actions) != 1 || card.Actions[0].Type != "Action.OpenUrl" ||
		card.Actions[0].URL != "https://c.example.com/console/approvals#apr_golden" {
		t.Fatalf("not the card expected: %+v", card)
	}
}

// TestWebhookChatInjection: what the requester writes reaches chat as
// plain text: no mention, channel ping or link can hide in a purpose or a
// display name, and an overlong purpose is cut.
func TestWebhookChatInjection(t *testing.T) {
	r := waiting()
	r.Purpose = "<!channel> please <https://evil.example|click> [here](https://evil.example) " + strings.Repeat("x", 2000)
	r.Principal = "user:<@U123>&co"
	r.Grants[0].Resources = []policy.Resource{{ID: "doc-9", DisplayName: "*bold* <https://evil.example>"}}
	for _, format := range []string{"slack", "teams"} {
		body := string(deliver(t, approval.WebhookConfig{Format: format}, "", r).body)
		var msg any
		if err := json.Unmarshal([]byte(body), &msg); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, strings.Repeat("x", 600)) {
			t.Errorf("%s: the purpose is not cut", format)
		}
		if format == "slack" {
			var s struct {
				Text   string
				Blocks []map[string]any
			}
			_ = json.Unmarshal([]byte(body), &s)
			if strings.ContainsAny(s.Text, "<>") || !strings.Contains(s.Text, "&lt;@U123&gt;&amp;co") {
				t.Errorf("slack: the fallback text is not escaped: %q", s.Text)
			}
			for _, b := range s.Blocks {
				raw, _ := json.Marshal(b)
				if strings.Contains(string(raw), "evil") && !strings.Contains(string(raw), `"type":"plain_text"`) {
					t.Errorf("slack: requester text outside plain_text: %s", raw)
				}
			}
		}
		if format == "teams" && strings.Contains(body, `"type":"TextBlock"`) {
			t.Error("teams: a TextBlock (read as markdown) carries text")
		}
	}
}

// TestWebhookConfigValidate: the approvals config names each problem's
// field, the format strictly.
func TestWebhookConfigValidate(t *testing.T) {
	tests := []struct {
		name      string
		cfg       approval.Config
		wantErr   error
		wantField string
	}{
		{"slack", approval.Config{Webhook: &approval.WebhookConfig{URL: "https://hooks.slack.com/services/T/B/X", Format: "slack"}}, nil, ""},
		{"teams", approval.Config{Webhook: &approval.WebhookConfig{URL: "https://example.webhook.office.com/x", Format: "teams"}}, nil, ""},
		{"unknown format", approval.Config{Webhook: &approval.WebhookConfig{URL: "https://h.example.com", Format: "mattermost"}}, approval.ErrWebhookConfig, "webhook.format"},
		{"bad url", approval.Config{Webhook: &approval.WebhookConfig{URL: "http://h.example.com/secret-token"}}, approval.ErrConfig, "webhook.url"},
		{"pending bound", approval.Config{MaxPendingPerPrincipal: -1}, approval.ErrConfig, "max_pending_per_principal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Validate() = %v, want %v", err, tc.wantErr)
			}
			if ce, ok := errors.AsType[*approval.ConfigError](err); tc.wantErr != nil && (!ok || ce.Field != tc.wantField) {
				t.Errorf("Validate() = %v, want field %s", err, tc.wantField)
			}
			if err != nil && strings.Contains(err.Error(), "secret-token") {
				t.Error("the error echoes the webhook URL, a chat tool's secret")
			}
		})
	}
}

// TestWebhookNeverLogsItsURL: a delivery that fails is logged without the
// webhook's URL, which for a chat tool is its secret.
func TestWebhookNeverLogsItsURL(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL + "/services/T0/B0/very-secret-token"
	srv.Close() // nothing listens there any more
	var logs bytes.Buffer
	hook, err := approval.NewWebhook(approval.WebhookConfig{URL: url, Format: "slack", MaxAttempts: 1},
		approval.WebhookOptions{Runtime: platform.Runtime{Getenv: env, Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
	if err != nil {
		t.Fatal(err)
	}
	hook.Notify(context.Background(), waiting())
	_ = hook.Close()
	if !strings.Contains(logs.String(), "not delivered") || strings.Contains(logs.String(), "very-secret-token") {
		t.Fatalf("the failed delivery was logged as:\n%s", logs.String())
	}
}
