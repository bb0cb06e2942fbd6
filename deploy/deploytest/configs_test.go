package deploytest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
	"go.yaml.in/yaml/v3"
)

// exampleConfig is one shipped config, the policy it runs with, and that
// policy's expectations, if any.
type exampleConfig struct {
	name, config, policy, tests string
}

func exampleConfigs() []exampleConfig {
	return []exampleConfig{
		// The compose replicas run the quickstart policy, mounted.
		{"compose", path("deploy", "examples", "compose", "capgate.yaml"), path("deploy", "examples", "quickstart", "policy.yaml"), ""},
		{"production", path("deploy", "examples", "production", "capgate.yaml"), path("deploy", "examples", "production", "policy.yaml"),
			path("deploy", "examples", "production", "policy_tests.yaml")},
	}
}

// TestExampleConfigsLoad: each config passes config.Load and the JSON
// Schema, as shipped, redis key included.
func TestExampleConfigsLoad(t *testing.T) {
	skipUntilRedis(t)
	sch := schema(t)
	for _, ex := range exampleConfigs() {
		t.Run(ex.name, func(t *testing.T) {
			cfg, err := config.Load(ex.config)
			if err != nil {
				t.Fatalf("config.Load: %v", err)
			}
			if cfg.Redis == nil {
				t.Error("the config runs several replicas but names no Redis")
			}
			if len(cfg.DevKeys) > 0 && ex.name == "production" {
				t.Error("the production config has dev keys")
			}
			data, _ := os.ReadFile(ex.config)
			if err := sch.Validate(asJSONValue(t, data)); err != nil {
				t.Errorf("schema: %v", err)
			}
		})
	}
}

// TestExampleConfigsApartFromRedis checks everything but the redis key
// with the loader and schema of today, so the rest of the configs is
// tested even while TestExampleConfigsLoad is skipped.
func TestExampleConfigsApartFromRedis(t *testing.T) {
	sch := schema(t)
	for _, ex := range exampleConfigs() {
		t.Run(ex.name, func(t *testing.T) {
			data := withoutKey(t, ex.config, "redis")
			if _, err := config.Parse(data, ex.config); err != nil {
				t.Fatalf("config.Parse without redis: %v", err)
			}
			if err := sch.Validate(asJSONValue(t, data)); err != nil {
				t.Errorf("schema without redis: %v", err)
			}
		})
	}
}

// withoutKey returns the YAML file at p with one top-level key removed.
func withoutKey(t *testing.T, p, key string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			break
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExamplePoliciesLoad: each policy loads without error or warning
// against its config's catalog, and the production policy passes its
// expectations.
func TestExamplePoliciesLoad(t *testing.T) {
	for _, ex := range exampleConfigs() {
		t.Run(ex.name, func(t *testing.T) {
			cfg, err := config.Parse(withoutKey(t, ex.config, "redis"), ex.config)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(ex.policy)
			if err != nil {
				t.Fatal(err)
			}
			p, problems, err := policy.Load(context.Background(), data, ex.policy, cfg.Catalog())
			if err != nil {
				t.Fatalf("policy.Load: %v", err)
			}
			for _, pr := range problems {
				t.Errorf("policy problem: %v", pr)
			}
			if ex.tests != "" {
				runPolicyTests(t, p, ex.tests)
			}
		})
	}
}

func runPolicyTests(t *testing.T, p *policy.Policy, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	suite, err := policytest.Parse(data, filepath.Base(file))
	if err != nil {
		t.Fatal(err)
	}
	results := suite.Run(context.Background(), p)
	if len(results) == 0 {
		t.Fatal("no policy test cases")
	}
	for _, r := range results {
		for _, f := range r.Failures {
			t.Errorf("%s: %s", r.Case.Name, f)
		}
	}
}

// TestConfigMaps: the Kubernetes ConfigMaps hold the production files
// byte for byte. -update regenerates them.
func TestConfigMaps(t *testing.T) {
	for _, cm := range configMaps() {
		t.Run(cm.name, func(t *testing.T) {
			want := readFile(t, "deploy", "examples", "production", cm.key)
			file := path("deploy", "kubernetes", cm.file)
			if *update {
				if err := os.WriteFile(file, renderConfigMap(cm, want), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var obj struct {
				Kind     string                `yaml:"kind"`
				Metadata struct{ Name string } `yaml:"metadata"`
				Data     map[string]string     `yaml:"data"`
			}
			decodeYAML(t, &obj, "deploy", "kubernetes", cm.file)
			if obj.Kind != "ConfigMap" || obj.Metadata.Name != cm.name || len(obj.Data) != 1 {
				t.Fatalf("%s: want ConfigMap %s with one key, got %s %s %d keys", cm.file, cm.name, obj.Kind, obj.Metadata.Name, len(obj.Data))
			}
			if got := obj.Data[cm.key]; !bytes.Equal([]byte(got), want) {
				t.Errorf("%s data.%s differs from deploy/examples/production/%s: run go test ./deploy/deploytest -run ConfigMaps -update",
					cm.file, cm.key, cm.key)
			}
		})
	}
}

// configMap is one generated ConfigMap.
type configMap struct {
	file, name, key, owner string
}

func configMaps() []configMap {
	return []configMap{
		{"configmap-config.yaml", "capgate-config", "capgate.yaml", "the platform team"},
		{"configmap-policy.yaml", "capgate-policy", "policy.yaml", "the security team"},
	}
}

// renderConfigMap writes a ConfigMap holding content as a literal block.
func renderConfigMap(cm configMap, content []byte) []byte {
	var b bytes.Buffer
	b.WriteString("# GENERATED from deploy/examples/production/" + cm.key + " by\n")
	b.WriteString("#   go test ./deploy/deploytest -run ConfigMaps -update\n")
	b.WriteString("# Edit that file, not this one. Owned by " + cm.owner + ".\n")
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + cm.name + "\n")
	b.WriteString("  labels:\n    app.kubernetes.io/name: capgate\n    app.kubernetes.io/component: gateway\n")
	b.WriteString("data:\n  " + cm.key + ": |\n")
	for _, line := range bytes.SplitAfter(content, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			b.Write(line)
			continue
		}
		b.WriteString("    ")
		b.Write(line)
	}
	return b.Bytes()
}
