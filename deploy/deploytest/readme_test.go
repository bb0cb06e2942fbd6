package deploytest

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/config"
)

// TestReadmeFrontingConfig: the minimal config of README "Fronting your
// own agent" is a valid config, and the agent it shows is the quickstart's
// notes agent as the demo runs it (but for the URL and the card refresh),
// so the section works as written.
func TestReadmeFrontingConfig(t *testing.T) {
	readme, err := os.ReadFile(path("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := yamlBlockAfter(t, string(readme), "### A minimal config")
	doc := "listen: {addr: \"127.0.0.1:0\"}\npublic_url: http://127.0.0.1:8080\npolicy: {file: policy.yaml}\n" +
		"dev_keys: [{hash: \"sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1\", principal: \"user:alice@example.com\"}]\n" + block
	cfg, err := config.Parse([]byte(doc), "README.md")
	if err != nil {
		t.Fatalf("the README's config does not parse: %v\n%s", err, doc)
	}
	qs, err := config.Load(path("deploy", "examples", "quickstart", "capgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want config.Agent
	for _, a := range qs.Agents {
		if a.Name == "notes" {
			want = a
		}
	}
	got := cfg.Agents[0]
	if got.Name != want.Name || got.Principal != want.Principal || !reflect.DeepEqual(got.Messages, want.Messages) ||
		!reflect.DeepEqual(got.Skills, want.Skills) || !reflect.DeepEqual(got.Catalog, want.Catalog) || len(got.Grants) != len(want.Grants) {
		t.Errorf("README agent %+v\ndiffers from the quickstart's %+v", got, want)
	}
	for i := range got.Grants {
		if !reflect.DeepEqual(got.Grants[i].Operations, want.Grants[i].Operations) || got.Grants[i].ID != want.Grants[i].ID {
			t.Errorf("grant %d: README %+v, quickstart %+v", i, got.Grants[i], want.Grants[i])
		}
	}
}

// yamlBlockAfter returns the first ```yaml block after heading in md.
func yamlBlockAfter(t *testing.T, md, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(md, heading)
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	if !ok {
		t.Fatalf("no yaml block after %q", heading)
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}
