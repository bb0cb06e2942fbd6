package approval

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds of what a chat message shows: chat tools cut or refuse longer
// fields (Slack: 3000 characters a section, 150 a header).
const (
	maxChatText      = 500
	maxChatResources = 10
	// maxChatGrants keeps a Slack message under its 50 blocks.
	maxChatGrants = 20
)

// notice is what a chat message tells approvers of a waiting request:
// display names only, never a real resource id.
type notice struct {
	Title, Requester, Agent, Purpose string
	// Asks is one line per grant: what it allows, on what, for how long,
	// and whether it is the grant that asked for approval.
	Asks                []string
	Approvers, Deadline string
	ID, ActionHash      string
	// Link is the request on the console; empty without a console URL.
	Link string
	// Hint says how to decide without the console.
	Hint string
}

// body is what a delivery of r carries, in the configured format.
func (w *Webhook) body(r Request) ([]byte, error) {
	pub := r.Public()
	switch w.format {
	case FormatSlack:
		return json.Marshal(slackMessage(newNotice(&pub, w.opts.ConsoleURL)))
	case FormatTeams:
		return json.Marshal(teamsMessage(newNotice(&pub, w.opts.ConsoleURL)))
	}
	return json.Marshal(Notification{Event: EventRequested, Request: pub})
}

// newNotice tells of pub, a request's public copy, linking to it under
// the console at consoleURL when there is one.
func newNotice(pub *Request, consoleURL string) notice {
	n := notice{Title: "Approval needed: " + clip(pub.Principal, 100), Requester: clip(pub.Principal, maxChatText),
		Agent: clip(pub.Agent, maxChatText), Purpose: clip(pub.Purpose, maxChatText), Approvers: clip(approversText(pub), maxChatText),
		Deadline: pub.Deadline.UTC().Format(time.RFC3339), ID: pub.ID, ActionHash: pub.ActionHash,
		Hint: "Decide with: capgate approvals approve " + pub.ID + " --reason TEXT (or deny)"}
	if n.Purpose == "" {
		n.Purpose = "(none given)"
	}
	if consoleURL != "" {
		n.Link = strings.TrimRight(consoleURL, "/") + "/console/approvals#" + pub.ID
	}
	for _, g := range pub.Grants[:min(len(pub.Grants), maxChatGrants)] {
		names := make([]string, 0, min(len(g.Resources), maxChatResources))
		for _, res := range g.Resources[:min(len(g.Resources), maxChatResources)] {
			names = append(names, res.DisplayName)
		}
		on := strings.Join(names, ", ")
		if more := len(g.Resources) - len(names); more > 0 {
			on += fmt.Sprintf(" and %d more", more)
		}
		if on == "" {
			on = "the whole agent"
		}
		line := fmt.Sprintf("%s: %s on %s, for %s", g.Grant, strings.Join(g.Operations, ", "), on, HumanDuration(g.TTL))
		if g.Approvers != nil {
			line += " (needs approval by " + g.Approvers.String() + ")"
		}
		n.Asks = append(n.Asks, clip(line, maxChatText))
	}
	if more := len(pub.Grants) - maxChatGrants; more > 0 {
		n.Asks = append(n.Asks, fmt.Sprintf("and %d more grants: see the request", more))
	}
	return n
}

// approversText names who may decide pub.
func approversText(pub *Request) string {
	var parts []string
	for _, a := range pub.Approvers() {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, " and ")
}

// clip bounds s to n runes, marking a cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// slackEscape makes s plain in Slack's mrkdwn: no link, mention or
// channel-wide ping can hide in it.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackMessage is n as a Slack incoming-webhook message. Everything the
// requester wrote is plain_text (no formatting, links or mentions); the
// fallback text, which Slack reads as mrkdwn, is escaped.
func slackMessage(n notice) map[string]any {
	plain := func(s string) map[string]any { return map[string]any{"type": "plain_text", "text": s, "emoji": false} }
	label := func(s string) map[string]any { return map[string]any{"type": "mrkdwn", "text": "*" + s + "*"} }
	blocks := []map[string]any{
		{"type": "header", "text": plain("Approval needed")},
		{"type": "section", "fields": []any{label("Requester"), plain(n.Requester), label("Agent"), plain(n.Agent),
			label("Purpose"), plain(n.Purpose), label("Approvers"), plain(n.Approvers)}},
		{"type": "section", "text": label("Asks for")},
	}
	for _, a := range n.Asks {
		blocks = append(blocks, map[string]any{"type": "section", "text": plain("• " + a)})
	}
	blocks = append(blocks, map[string]any{"type": "context", "elements": []any{
		plain("Request " + n.ID + " · waits until " + n.Deadline + " · action " + n.ActionHash)}})
	if n.Link != "" {
		blocks = append(blocks, map[string]any{"type": "actions", "elements": []any{map[string]any{
			"type": "button", "text": plain("Open in the capgate console"), "url": n.Link, "style": "primary"}}})
	} else {
		blocks = append(blocks, map[string]any{"type": "context", "elements": []any{plain(n.Hint)}})
	}
	return map[string]any{"text": slackEscape(n.Title + " (" + n.Agent + ")"), "blocks": blocks}
}

// teamsMessage is n as a Teams message carrying one Adaptive Card (1.4).
// Everything the requester wrote is a TextRun, which Teams never reads as
// markdown: no link or formatting can hide in it.
func teamsMessage(n notice) map[string]any {
	run := func(s string, bold bool) map[string]any {
		r := map[string]any{"type": "TextRun", "text": s}
		if bold {
			r["weight"] = "Bolder"
		}
		return r
	}
	field := func(name, value string) map[string]any {
		return map[string]any{"type": "RichTextBlock", "inlines": []any{run(name+": ", true), run(value, false)}}
	}
	body := []any{
		map[string]any{"type": "RichTextBlock", "inlines": []any{map[string]any{"type": "TextRun", "text": "Approval needed", "size": "Large", "weight": "Bolder"}}},
		field("Requester", n.Requester), field("Agent", n.Agent), field("Purpose", n.Purpose),
		map[string]any{"type": "RichTextBlock", "inlines": []any{run("Asks for", true)}},
	}
	for _, a := range n.Asks {
		body = append(body, map[string]any{"type": "RichTextBlock", "inlines": []any{run("• "+a, false)}})
	}
	body = append(body, field("Approvers", n.Approvers), field("Waits until", n.Deadline), field("Request", n.ID),
		field("Action hash", n.ActionHash))
	card := map[string]any{"$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard",
		"version": "1.4", "body": body, "msteams": map[string]any{"width": "Full"}}
	if n.Link != "" {
		card["actions"] = []any{map[string]any{"type": "Action.OpenUrl", "title": "Open in the capgate console", "url": n.Link}}
	} else {
		body = append(body, map[string]any{"type": "RichTextBlock", "inlines": []any{run(n.Hint, false)}})
		card["body"] = body
	}
	return map[string]any{"type": "message", "attachments": []any{map[string]any{
		"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": nil, "content": card}}}
}
