package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2efront"
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
	section := readmeSection(t, "The two commands")
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

// TestReadmeA2E runs README "A2E in five minutes" against a quickstart
// world: each line the section sends gets the answer on send and the
// events on the stream that the section shows, but for the members that
// change on every run (id, ts, session_id).
func TestReadmeA2E(t *testing.T) {
	section := readmeSection(t, "A2E in five minutes")
	for _, want := range []string{"/a2e/lab/session", "/a2e/lab/stream", "/a2e/lab/send", a2efront.SessionHeader + ": $SID"} {
		if !strings.Contains(section, want) {
			t.Errorf("the section does not use %s", want)
		}
	}
	steps := regexp.MustCompile("(?s)send '([^\n]*)'\n```\n.*?```text\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(steps) != 3 {
		t.Fatalf("found %d sends with their answers, want 3", len(steps))
	}
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := lab.NewSession(ctx, &http.Client{}, w.URL+"/a2e/lab/")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	for _, step := range steps {
		line, shown := step[1], strings.Split(strings.TrimSpace(step[2]), "\n")
		_, body, err := c.Send(ctx, []byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, string(body), shown[0]) {
			t.Errorf("send %s\nanswered %s\nthe README shows %s", line, body, shown[0])
		}
		for _, event := range shown[1:] {
			want, ok := strings.CutPrefix(event, "data: ")
			if !ok {
				continue
			}
			ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
			got, err := c.NextLine(ectx)
			cancel()
			if err != nil || !sameJSON(t, string(got), want) {
				t.Errorf("after %s the stream carried %s (%v)\nthe README shows %s", line, got, err, want)
			}
		}
	}
}

// sameJSON reports whether two JSON objects are equal but for the members
// that change on every run.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb map[string]any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("the README shows no JSON: %s", b)
	}
	for _, m := range []map[string]any{va, vb} {
		delete(m, "id")
		delete(m, "ts")
		delete(m, "session_id")
	}
	return reflect.DeepEqual(va, vb)
}

// readmeSection is the text of the README's "## heading" section.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}
