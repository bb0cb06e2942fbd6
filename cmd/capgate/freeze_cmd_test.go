package main

import (
	"context"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// TestFreezeCommands freezes a principal through the admin API of a
// running quickstart world, lists it, and unfreezes it; bad command
// lines are usage errors that reach no gateway.
func TestFreezeCommands(t *testing.T) {
	w, err := quickstart.Start(context.Background(), quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	admin := []string{"--admin", w.AdminURL, "--key", "admin-dev-key"}
	tests := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"freeze", "principal", "user:alice@example.com"}, 2, "--reason is required"},
		{[]string{"freeze", "group", "x", "--reason", "r"}, 2, `say agent NAME or principal ID, not "group"`},
		{[]string{"freeze", "agent"}, 2, "missing agent NAME or principal ID"},
		{[]string{"frozen"}, 0, "nothing is frozen\n"},
		{[]string{"freeze", "principal", "user:alice@example.com", "--reason", "laptop stolen"}, 0,
			"froze principal user:alice@example.com on every replica and revoked 0 live capabilities with their descendants\n"},
		{[]string{"frozen"}, 0, "principal user:alice@example.com\tsince "},
		{[]string{"frozen"}, 0, " by user:admin@example.com: laptop stolen\n"},
		{[]string{"unfreeze", "principal", "user:alice@example.com", "--reason", "found"}, 0, "unfroze principal user:alice@example.com"},
		{[]string{"unfreeze", "principal", "user:alice@example.com", "--reason", "again"}, 1, "HTTP 404: freeze: not frozen"},
		{[]string{"freeze", "agent", "summarizer", "--reason", "incident 9"}, 0,
			"froze with it principal agent:summarizer, which the agent calls out as (counted above)\n"},
		{[]string{"frozen"}, 0, "principal agent:summarizer\tsince "},
		{[]string{"unfreeze", "agent", "summarizer", "--reason", "resolved"}, 0, "unfroze agent summarizer"},
		{[]string{"frozen"}, 0, "nothing is frozen\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, append(tt.args, admin...)...)
		if code != tt.wantCode || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("capgate %v: exit %d, %q %q; want %d and %q", tt.args, code, out, errOut, tt.wantCode, tt.want)
		}
	}
}
