package config

import "testing"

// TestPushRelayPerPrincipalDefault: a push_relay section naming no
// per-principal bound gets the default, never more than max_configs.
func TestPushRelayPerPrincipalDefault(t *testing.T) {
	base := `
listen: {addr: "127.0.0.1:0"}
public_url: http://127.0.0.1:8080
agents: [{name: notes, url: "http://127.0.0.1:1/"}]
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:a@example.com"}]
policy: {file: p.yaml}
`
	tests := []struct {
		name, section string
		want          int
	}{
		{"default", "push_relay: {}\n", DefaultPushConfigsPerPrincipal},
		{"default under a small bound", "push_relay: {max_configs: 7}\n", 7},
		{"named", "push_relay: {max_configs_per_principal: 3}\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(base+tt.section), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.PushRelay.MaxConfigsPerPrincipal; got != tt.want {
				t.Errorf("max_configs_per_principal = %d, want %d", got, tt.want)
			}
		})
	}
}
