package quickstart_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

var update = flag.Bool("update", false, "rewrite golden files")

func snapshot(t *testing.T, w *quickstart.World, key string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, w.URL+"/a2a/documents/capabilities", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), w.URL, "http://gateway.test") + "\n"
}

// TestCapabilitySnapshots compares each principal's AG-UI snapshot,
// served by the real gateway, with its golden file.
func TestCapabilitySnapshots(t *testing.T) {
	w := startWorld(t)
	for _, p := range []struct{ name, key string }{
		{"alice", quickstart.AliceKey}, {"bob", quickstart.BobKey}, {"carol", quickstart.CarolKey},
	} {
		t.Run(p.name, func(t *testing.T) {
			got := snapshot(t, w, p.key)
			golden := "testdata/snapshot_" + p.name + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("snapshot differs from %s (run with -update):\n%s", golden, got)
			}
		})
	}
	if snapshot(t, w, quickstart.AliceKey) == snapshot(t, w, quickstart.BobKey) {
		t.Error("alice and bob see the same snapshot")
	}
}

// TestSnapshotFollowsPolicyReload: the snapshot is computed from the
// policy in force, so a reload changes it on the next call.
func TestSnapshotFollowsPolicyReload(t *testing.T) {
	w := startWorld(t)
	before := snapshot(t, w, quickstart.BobKey)
	pol, err := os.ReadFile(w.Config.Policy.File)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(pol), "operations: [retrieve, list]", "operations: [list]", 1)
	if changed == string(pol) {
		t.Fatal("the quickstart policy no longer has the contractors' operations line")
	}
	if err := os.WriteFile(w.Config.Policy.File, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Gateway.Policy.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, w, quickstart.BobKey)
	if after == before || strings.Contains(after, `"retrieve_document"`) {
		t.Fatalf("bob's snapshot did not follow the reload:\n%s", after)
	}
}
