package a2agen_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// extensionMembers are the top-level members the gateway keeps as they
// are: the capability extension's.
var extensionMembers = []string{"capabilityId", "capabilityToken", "capabilities", "attenuations"}

// TestGolden translates every testdata/request_*.json (a v1.0 method and
// its params), testdata/answer_*.json (a v1.0 method and a v0.3
// response), testdata/request03_*.json (a v0.3 method and its params) and
// testdata/answer1_*.json (a v0.3 method and a v1.0 response), and
// compares the result with its .golden file.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*_*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			var c struct {
				Method   string          `json:"method"`
				Params   json.RawMessage `json:"params"`
				Response json.RawMessage `json:"response"`
			}
			raw, err := os.ReadFile(in)
			if err != nil || json.Unmarshal(raw, &c) != nil {
				t.Fatalf("reading %s: %v", in, err)
			}
			got, err := translateGolden(filepath.Base(in), c.Method, c.Params, c.Response)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, strings.TrimSuffix(in, ".json")+".golden", got)
		})
	}
}

// translateGolden translates one golden input, by the direction its file
// name says.
func translateGolden(name, method string, params, resp json.RawMessage) (any, error) {
	switch {
	case strings.HasPrefix(name, "request_"):
		m, p, err := a2agen.Request(method, params, extensionMembers...)
		return map[string]any{"method": m, "params": p}, err
	case strings.HasPrefix(name, "request03_"):
		m, p, err := a2agen.RequestTo1(method, params, extensionMembers...)
		return map[string]any{"method": m, "params": p}, err
	case strings.HasPrefix(name, "answer1_"):
		return a2agen.ResponseTo03(method, resp)
	}
	return a2agen.Response(method, resp)
}

func compareGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\ngot  %s\nwant %s", path, got, want)
	}
}
