package agentcard_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/policy"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// readCard reads a JSON card from testdata.
func readCard(t testing.TB, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, string(data))
}

// golden compares got, as indented JSON, with testdata/name, rewriting the
// file under -update.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("%s differs (run go test -update to accept):\n%s", path, data)
	}
}

// TestWithTiersGolden shows the served card as the gateway builds it
// (Rewrite, then WithTiers, which Rewrite already applied) for a v0.3-only
// upstream (documents, and ledger with a gRPC interface), a v1.0-only one
// (planner) and one that speaks both (summarizer).
func TestWithTiersGolden(t *testing.T) {
	for _, tt := range goldenCards {
		t.Run(tt.upstream, func(t *testing.T) {
			golden(t, tt.golden, agentcard.WithTiers(agentcard.Rewrite(readCard(t, tt.upstream), goldenConfig(tt.legacy))))
		})
	}
}

// goldenCards are the upstream cards of testdata and their served goldens.
var goldenCards = []struct {
	upstream, golden string
	legacy           bool
}{
	{"documents_upstream.json", "documents_served.golden.json", false},
	{"legacy_upstream.json", "legacy_served.golden.json", true},
	{"v1_upstream.json", "v1_served.golden.json", false},
	{"both_upstream.json", "both_served.golden.json", false},
}

// goldenConfig is the agent config the goldens are served with.
func goldenConfig(legacy bool) agentcard.Config {
	return agentcard.Config{Agent: "x", PublicURL: "http://127.0.0.1:8080/a2a/x", Legacy: legacy,
		Grants:      []policy.Grant{{ID: "documents:read", Operations: []string{"retrieve", "search", "list"}, Attenuable: true}},
		CardURLs:    []*url.URL{{Scheme: "http", Host: "upstream"}},
		OIDCIssuers: []string{"https://idp.example.com/", "https://login.example.org/realms/agents"}}
}

func TestTiers(t *testing.T) {
	ext := agentcard.ExtensionURI
	tests := []struct {
		name                 string
		card                 string
		declared, deprecated []string
	}{
		{name: "empty", card: `{}`, declared: []string{}, deprecated: []string{}},
		{name: "capabilities not an object", card: `{"capabilities":[1]}`, declared: []string{}, deprecated: []string{}},
		{name: "streaming → streaming_message", card: `{"capabilities":{"streaming":true}}`, declared: []string{"streaming_message"}, deprecated: []string{}},
		{name: "explicit false wins over alias", card: `{"capabilities":{"streaming":true,"streaming_message":false}}`, declared: []string{}, deprecated: []string{}},
		{name: "pushNotifications → push_notifications", card: `{"capabilities":{"pushNotifications":true}}`, declared: []string{"push_notifications"}, deprecated: []string{}},
		{name: "non-boolean declares nothing", card: `{"capabilities":{"streaming":"true","pause_resume":1,"multi_tenant":null}}`, declared: []string{}, deprecated: []string{}},
		{name: "contract order, then extensions once", card: `{"capabilities":{"message_history_injection":true,"pause_resume":true,
			"extensions":[{"uri":"urn:b"},{"uri":"` + ext + `"},{"uri":"urn:b"},{"nouri":1},"junk"]}}`,
			declared: []string{"pause_resume", "message_history_injection", "urn:b", ext}, deprecated: []string{}},
		{name: "deprecated", card: `{"capabilities":{"artifact_streaming":true,"stateTransitionHistory":true}}`,
			declared: []string{}, deprecated: []string{"artifact_streaming", "state_transition_history"}},
		{name: "upstream tiers ignored", card: `{"capability_tiers":{"declared":["pause_resume"],"deprecated":["x"]},"capabilities":{}}`,
			declared: []string{}, deprecated: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agentcard.Tiers(decode(t, tt.card))
			want := map[string]any{"implicit": []string{"SendMessage", "GetTask", "ListTasks", "error_handling"},
				"declared": tt.declared, "deprecated": tt.deprecated}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Tiers = %#v\nwant %#v", got, want)
			}
		})
	}
}

func TestWithTiers(t *testing.T) {
	tests := []struct {
		name, card string
		min, max   any // nil: absent
		caps       any // the capabilities member of the result
	}{
		{name: "range derived from protocolVersion", card: `{"protocolVersion":"0.3.0"}`, min: "0.3.0", max: "0.3.0",
			caps: map[string]any{"pause_resume": false, "streaming_message": false, "push_notifications": false,
				"context_reuse": false, "multi_tenant": false, "message_history_injection": false}},
		{name: "one end kept, not completed", card: `{"protocolVersion":"0.3.0","max_protocol_version":"1.0","capabilities":{}}`, max: "1.0"},
		{name: "malformed protocolVersion not propagated", card: `{"protocolVersion":"0.3-beta","capabilities":{}}`},
		{name: "no version at all", card: `{"capabilities":{}}`},
		{name: "malformed kept as is", card: `{"min_protocol_version":7,"capabilities":{"streaming_message":"yes","streaming":true}}`, min: float64(7),
			caps: map[string]any{"streaming_message": "yes", "streaming": true, "pause_resume": false, "push_notifications": false,
				"context_reuse": false, "multi_tenant": false, "message_history_injection": false}},
		{name: "non-object capabilities kept", card: `{"capabilities":"all"}`, caps: "all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card := decode(t, tt.card)
			before, _ := json.Marshal(card)
			out := agentcard.WithTiers(card)
			if after, _ := json.Marshal(card); !bytes.Equal(before, after) {
				t.Errorf("WithTiers modified its input: %s", after)
			}
			if out[agentcard.MemberMinProtocolVersion] != tt.min || out[agentcard.MemberMaxProtocolVersion] != tt.max {
				t.Errorf("range = %v..%v, want %v..%v", out[agentcard.MemberMinProtocolVersion], out[agentcard.MemberMaxProtocolVersion], tt.min, tt.max)
			}
			if tt.caps != nil && !reflect.DeepEqual(out["capabilities"], tt.caps) {
				t.Errorf("capabilities = %#v, want %#v", out["capabilities"], tt.caps)
			}
			if _, ok := out[agentcard.MemberTiers]; !ok {
				t.Errorf("no %s", agentcard.MemberTiers)
			}
		})
	}
}

// readTestdata reads a file of testdata.
func readTestdata(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name))
}
