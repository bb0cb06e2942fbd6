package deploytest

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryFileParses: every YAML and JSON file under deploy/, and
// docker-compose.yaml, parses; YAML files are decoded document by document
// (Kubernetes files may hold several), with duplicate keys refused.
func TestEveryFileParses(t *testing.T) {
	files := []string{path("docker-compose.yaml")}
	err := filepath.WalkDir(path("deploy"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimPrefix(filepath.ToSlash(f), root+"/")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Ext(f) == ".json" {
				var v any
				if err := json.Unmarshal(data, &v); err != nil {
					t.Fatal(err)
				}
				return
			}
			docs, err := yamlDocs(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) == 0 {
				t.Fatal("no YAML document")
			}
		})
	}
}
