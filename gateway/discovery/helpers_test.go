package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/capgate/capgate/gateway/discovery"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const (
	quickstartDir = "../../deploy/examples/quickstart/"
	publicURL     = "http://127.0.0.1:8080/a2a/documents"
)

// now is the fixed decision time of every test.
var now = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

// loadPolicy loads a policy document against the quickstart catalog (or
// cat, when given).
func loadPolicy(t testing.TB, doc []byte, cat ...policy.Catalog) *policy.Policy {
	t.Helper()
	c := policytest.QuickstartCatalog()
	if len(cat) > 0 {
		c = cat[0]
	}
	p, problems, err := policy.Load(context.Background(), doc, "policy.yaml", c)
	if err != nil {
		t.Fatalf("policy does not load: %v", err)
	}
	for _, pr := range problems {
		t.Logf("policy problem: %v", pr)
	}
	return p
}

// quickstartPolicy loads the shipped quickstart policy.
func quickstartPolicy(t testing.TB) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile(quickstartDir + "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return loadPolicy(t, data)
}

// documentsAgent reads the documents agent's grants and skills from the
// shipped quickstart gateway config.
func documentsAgent(t testing.TB) ([]policy.Grant, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(quickstartDir + "capgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Agents []struct {
			Name   string            `yaml:"name"`
			Grants []policy.Grant    `yaml:"grants"`
			Skills map[string]string `yaml:"skills"`
		} `yaml:"agents"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.Agents {
		if a.Name == "documents" {
			return a.Grants, a.Skills
		}
	}
	t.Fatal("no documents agent in capgate.yaml")
	return nil, nil
}

// documentsCard is the documents agent's upstream card.
func documentsCard(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile("testdata/documents_card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card map[string]any
	if err := json.Unmarshal(data, &card); err != nil {
		t.Fatal(err)
	}
	return card
}

// quickstartInput is the documents agent's snapshot input for one of the
// quickstart principals (alice, bob, carol, summarizer).
func quickstartInput(t testing.TB, who string, p *policy.Policy) discovery.Input {
	t.Helper()
	grants, skills := documentsAgent(t)
	principal, ok := policytest.QuickstartPrincipals()[who]
	if !ok {
		t.Fatalf("unknown principal %q", who)
	}
	return discovery.Input{
		Agent: "documents", Card: documentsCard(t), PublicURL: publicURL,
		Grants: grants, Skills: skills, Policy: p, Principal: principal, Now: now,
		Collections:      []string{"reports", "hr"},
		SubAgents:        []discovery.SubAgent{{Name: "summarizer", Description: "Summarizes the documents it is delegated."}, {Name: "documents"}},
		MaxExecutionTime: 30 * time.Second,
	}
}

// snapshotJSON computes a snapshot and returns it as indented JSON.
func snapshotJSON(t testing.TB, in discovery.Input) []byte {
	t.Helper()
	snap, err := discovery.Snapshot(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n%s", path, got)
	}
}

// toolNames lists a snapshot's tool names.
func toolNames(s discovery.AgentCapabilities) []string {
	var out []string
	if s.Tools != nil {
		for _, tool := range s.Tools.Items {
			out = append(out, tool.Name)
		}
	}
	return out
}

// grantsOf returns a snapshot's capabilityGrants.
func grantsOf(t testing.TB, s discovery.AgentCapabilities) []discovery.GrantCaps {
	t.Helper()
	g, ok := s.Custom[discovery.CustomCapabilityGrants].([]discovery.GrantCaps)
	if !ok {
		t.Fatalf("custom.%s = %#v", discovery.CustomCapabilityGrants, s.Custom[discovery.CustomCapabilityGrants])
	}
	return g
}
