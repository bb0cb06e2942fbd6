package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// TestSchemaMatchesLoader checks the shipped JSON Schema against the
// example configs (which Load accepts) and against a config the loader
// refuses for an unknown key, so schema and loader cannot drift apart
// silently.
func TestSchemaMatchesLoader(t *testing.T) {
	schemaPath := filepath.Join("..", "..", "deploy", "capgate.schema.json")
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "deploy", "examples", "*", "capgate*.yaml"))
	if len(examples) == 0 {
		t.Fatal("no example configs found")
	}
	for _, p := range examples {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			if _, err := Load(p); err != nil {
				t.Fatalf("Load: %v", err)
			}
			if err := sch.Validate(yamlToJSON(t, p)); err != nil {
				t.Errorf("schema rejects %s: %v", p, err)
			}
		})
	}
	bad := yamlToJSON(t, "testdata/bad.yaml")
	if err := sch.Validate(bad); err == nil {
		t.Error("schema accepts testdata/bad.yaml, which the loader refuses")
	}
}

func yamlToJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
