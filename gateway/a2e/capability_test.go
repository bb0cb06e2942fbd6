package a2e

import "testing"

func TestCapabilityFor(t *testing.T) {
	tests := []struct {
		typ        string
		capability string
		always     bool
	}{
		{"handshake/req", "", true},
		{"handshake/resp", "", true},
		{"ping", "", true},
		{"pong", "", true},
		{"shutdown", "", true},
		{"error", "", true},
		{"invoke/event", "", true},
		{"skill/run/req", "skill", false},
		{"tool/call/req", "tools", false},
		{"tool/list/resp", "tools", false},
		{"toolkit/load/req", "toolkits", false},
		{"env/reset/req", "env", false},
		{"env/step/req", "env", false},
		{"proc/start/req", "proc", false},
		{"memory/store/req", "memory", false},
		{"learn/feedback/req", "learning", false},
		{"chain/run/req", "chains", false},
		{"mcp/call/req", "mcp", false},
		{"multi_agent/send/req", "multi_agent", false},
		{"planning/plan/req", "planning", false},
		// Not namespaces: the capability name is not the namespace.
		{"tools/call/req", "", false},
		{"learning/x/req", "", false},
		{"chains/run/req", "", false},
		{"invoke/other", "", false},
		{"Ping", "", false},
		{"tool", "", false},
		{"tool/", "", false},
		{"tool//req", "", false},
		{"tool/call/req/", "", false},
		{"tool/CALL/req", "", false},
		{"tool/call req", "", false},
		{"", "", false},
		{"tool/" + string(make([]byte, 80)), "", false},
	}
	for _, tc := range tests {
		c, always := CapabilityFor(tc.typ)
		if c != tc.capability || always != tc.always {
			t.Errorf("CapabilityFor(%q) = %q, %v; want %q, %v", tc.typ, c, always, tc.capability, tc.always)
		}
	}
}

func TestIsRequest(t *testing.T) {
	for typ, want := range map[string]bool{
		"tool/call/req": true, "chain/run/req": true, "tool/call/resp": false,
		"handshake/req": false, "ping": false, "invoke/event": false, "env/req": true,
	} {
		if got := IsRequest(typ); got != want {
			t.Errorf("IsRequest(%q) = %v, want %v", typ, got, want)
		}
	}
}
