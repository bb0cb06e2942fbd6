package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeTestNeeds: README "The two commands" names what the test
// command needs for full coverage, as the CI script installs it and as the
// kit asks for it, and gives one line that installs it all.
func TestReadmeTestNeeds(t *testing.T) {
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	_, section, ok := strings.Cut(read("../../README.md"), "\n## The two commands\n")
	if !ok {
		t.Fatal(`README has no "The two commands"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	const kit = "npm ci --prefix gateway/interop/js"
	var pkg struct {
		Engines struct{ Node string } `json:"engines"`
	}
	if err := json.Unmarshal([]byte(read("../../gateway/interop/js/package.json")), &pkg); err != nil {
		t.Fatal(err)
	}
	node := "`node` " + strings.TrimPrefix(pkg.Engines.Node, ">=") + " or newer"
	ci := read("../../.ci/run")
	for _, want := range []string{"go test -race ./...", node, "chromium", "redis-server", kit, "CAPGATE_SKIP_REDIS=1", "cold", "build cache"} {
		if !strings.Contains(section, want) {
			t.Errorf("the section does not say %q", want)
		}
	}
	install := regexp.MustCompile("(?m)^sudo apt-get install -y (.*) && " + regexp.QuoteMeta(kit) + "$").FindStringSubmatch(section)
	if install == nil {
		t.Fatal("the section has no one-line install of the packages and the kit")
	}
	for _, p := range []string{"redis-server", "chromium", "nodejs", "npm"} {
		if !strings.Contains(" "+install[1]+" ", " "+p+" ") {
			t.Errorf("the install line lacks %s", p)
		}
	}
	for _, p := range []string{"install -y -qq redis-server", "install -y -qq chromium", kit} {
		if !strings.Contains(ci, p) {
			t.Errorf(".ci/run no longer does %q: the README's line may have drifted from CI's", p)
		}
	}
	if !strings.Contains(read("../../gateway/interop/kit_test.go"), kit) {
		t.Errorf("the interop kit's skip message no longer names %q", kit)
	}
}
