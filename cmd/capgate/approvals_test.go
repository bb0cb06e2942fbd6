package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// TestApprovalsCommand lists carol's waiting HR write as dave, refuses a
// decision without a reason, and approves it.
func TestApprovalsCommand(t *testing.T) {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "a2a/capabilities/request", "params": map[string]any{
		"grants": []string{"documents:read", "documents:write"}, "resourceQuery": map[string]any{"collection": "hr"}}})
	req, _ := http.NewRequest(http.MethodPost, w.URL+"/a2a/documents", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+quickstart.CarolKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Result struct{ ApprovalID string } }
	_ = json.NewDecoder(resp.Body).Decode(&env)
	resp.Body.Close()
	id := env.Result.ApprovalID
	if id == "" {
		t.Fatal("no pending request")
	}
	code, out, errOut := runCmd(t, "approvals", "list", "--admin", w.AdminURL, "--key", quickstart.DaveKey, "--status", "pending")
	row := regexp.MustCompile(`(?m)^` + id + ` +pending +user:carol@example.com +documents +documents:read,documents:write +Salaries 2025 +15m +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	if code != 0 || !strings.HasPrefix(out, "ID ") || !row.MatchString(out) {
		t.Fatalf("list: %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCmd(t, "approvals", "list", "--json", "--admin", w.AdminURL, "--key", quickstart.DaveKey)
	if code != 0 || !strings.Contains(out, `"ttl":"15m","ttlSeconds":900`) || !strings.Contains(out, `"actionHash":"sha256:`) || strings.Count(out, "\n") != 1 {
		t.Fatalf("list --json: %d %s", code, out)
	}
	if code, _, _ := runCmd(t, "approvals", "approve", id, "--admin", w.AdminURL, "--key", quickstart.DaveKey); code != 2 {
		t.Errorf("approve without a reason exited %d, want 2", code)
	}
	if code, _, errOut := runCmd(t, "approvals", "approve", id, "--reason", "mine", "--admin", w.AdminURL, "--key", quickstart.CarolKey); code != 1 || !strings.Contains(errOut, "403") {
		t.Errorf("self approval exited %d: %s", code, errOut)
	}
	if code, _, errOut := runCmd(t, "approvals", "approve", id, "--reason", "SEC-7", "--action-hash", "sha256:00", "--admin", w.AdminURL, "--key", quickstart.DaveKey); code != 1 || !strings.Contains(errOut, "409") {
		t.Errorf("approving another action hash exited %d: %s", code, errOut)
	}
	hash := regexp.MustCompile(`"actionHash":"(sha256:[0-9a-f]{64})"`).FindStringSubmatch(out)
	if hash == nil {
		t.Fatalf("list --json shows no action hash: %s", out)
	}
	code, out, errOut = runCmd(t, "approvals", "approve", id, "--reason", "SEC-7", "--action-hash", hash[1], "--admin", w.AdminURL, "--key", quickstart.DaveKey)
	if code != 0 || !strings.HasPrefix(out, id+" approved: documents:read,documents:write for user:carol@example.com on documents, by user:dave@example.com: SEC-7\n") {
		t.Fatalf("approve: %d %s %s", code, out, errOut)
	}
	code, out, _ = runCmd(t, "approvals", "list", "--admin", w.AdminURL, "--key", quickstart.DaveKey, "--status", "denied")
	if code != 0 || out != "no approval requests\n" {
		t.Errorf("an empty list: %d %q", code, out)
	}
}
