package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
	"github.com/capgate/capgate/policy/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func load(t *testing.T, path string) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := policy.Load(context.Background(), data, path, policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var quickstart = filepath.Join("..", "..", "deploy", "examples", "quickstart", "policy.yaml")

// demoTrail is a trail the quickstart walkthrough wrote (capgate demo
// --audit), with every kind of event.
func demoTrail(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayQuickstartAgainstItself: the policy that wrote the trail
// changes nothing; only the A2E handshakes are not replayed.
func TestReplayQuickstartAgainstItself(t *testing.T) {
	rep, err := replay.Replay(context.Background(), bytes.NewReader(demoTrail(t)), load(t, quickstart))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Changes) != 0 || rep.Replayed == 0 {
		t.Fatalf("changes %+v, %d replayed", rep.Changes, rep.Replayed)
	}
	for _, l := range rep.Lacking {
		if l.Event != "a2e.handshake" {
			t.Errorf("not replayed: %+v", l)
		}
	}
}

// TestReplayNarrowed: narrowing finance-read-reports denies alice's
// issuances, and with them every attenuation, delegation and invocation
// that descends from them; the report is pinned by a golden file.
func TestReplayNarrowed(t *testing.T) {
	rep, err := replay.Replay(context.Background(), bytes.NewReader(demoTrail(t)), load(t, "testdata/narrowed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range rep.Changes {
		seen[c.Event+" "+c.Was+" -> "+c.Now] = true
	}
	for _, want := range []string{"capability.issue issued -> denied", "capability.invoke allowed -> refused", "capability.attenuate attenuated -> refused"} {
		if !seen[want] {
			t.Errorf("no change %q in %v", want, seen)
		}
	}
	got, _ := json.MarshalIndent(rep, "", "  ")
	got = regexp.MustCompile(`"chain": "[^"]*"`).ReplaceAll(got, []byte(`"chain": "C"`))
	path := "testdata/narrowed.golden.json"
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("report differs from %s:\n%s", path, got)
	}
}

// TestReplayOlderTrail: issue events without the request member (older
// trails) are listed as not replayed, and so is every use of their
// capabilities; nothing is guessed.
func TestReplayOlderTrail(t *testing.T) {
	old := regexp.MustCompile(`"request":\{("[^"]*":("[^"]*"|\[[^\]]*\]|\{"collection":"[^"]*","filter":\{[^}]*\}\}|\{[^}]*\}),?)*\},`).
		ReplaceAll(demoTrail(t), nil)
	if bytes.Contains(old, []byte(`"request":`)) {
		t.Fatal("the test did not strip every request member")
	}
	rep, err := replay.Replay(context.Background(), bytes.NewReader(old), load(t, "testdata/narrowed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Changes) != 0 {
		t.Fatalf("changes from events that lack the request: %+v", rep.Changes)
	}
	lacks := 0
	for _, l := range rep.Lacking {
		if l.Event == "capability.issue" && strings.Contains(l.Why, "does not record the request") {
			lacks++
		}
	}
	if lacks == 0 {
		t.Fatalf("older issue events not listed: %+v", rep.Lacking)
	}
}

func TestReplayRefusesGarbage(t *testing.T) {
	for _, in := range []string{"not json\n", `{"no":"event"}` + "\n"} {
		if _, err := replay.Replay(context.Background(), strings.NewReader(in), load(t, quickstart)); err == nil {
			t.Errorf("%q replayed", in)
		}
	}
}

// FuzzReplay: any trail either replays or is refused, never a panic.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(`{"event":"capability.issue","chain":"c","seq":1,"decision":"issued","request":{"max_ttl":"1h"},"grants":["documents:read"]}`))
	f.Add([]byte(`{"event":"capability.invoke","chain":"c","capability_id":"x","decision":"allowed"}`))
	data, _ := os.ReadFile(quickstart)
	pol, _, err := policy.Load(context.Background(), data, quickstart, policytest.QuickstartCatalog())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = replay.Replay(context.Background(), bytes.NewReader(b), pol)
	})
}
