package a2agen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// v1Aliases are the older spellings of the v1 service the gateway
// accepts, with the v1.0 name each stands for.
var v1Aliases = []struct{ alias, current string }{
	{"TaskResubscription", "SubscribeToTask"},
	{"TaskSubscription", "SubscribeToTask"},
	{"SetTaskPushNotificationConfig", "CreateTaskPushNotificationConfig"},
	{"ListTaskPushNotificationConfig", "ListTaskPushNotificationConfigs"},
	{"GetAuthenticatedExtendedCard", "GetExtendedAgentCard"},
}

// TestAliasesGolden: a call in an older v1 spelling is translated for a
// v0.3 agent exactly as the call of its v1.0 name: the same v0.3 method
// and params, and the agent's answer back in the same v1.0 shape. Every
// golden input of the v1.0 name is translated again under each alias and
// compared with the v1.0 name's own .golden file.
func TestAliasesGolden(t *testing.T) {
	for _, a := range v1Aliases {
		t.Run(a.alias, func(t *testing.T) {
			if got, ok := jsonrpc.V1Name(a.alias); !ok || got != a.current {
				t.Fatalf("jsonrpc.V1Name(%q) = %q, %v; want %q", a.alias, got, ok, a.current)
			}
			v03, ok := a2agen.Translatable(a.alias)
			want03, wantOK := a2agen.Translatable(a.current)
			if v03 != want03 || ok != wantOK {
				t.Fatalf("Translatable(%q) = %q, %v; want %q, %v as for %s", a.alias, v03, ok, want03, wantOK, a.current)
			}
			if n := aliasGoldens(t, a.alias, a.current); wantOK && n < 2 {
				t.Errorf("%d golden inputs of %s; want a request and an answer at least", n, a.current)
			}
		})
	}
}

// aliasGoldens translates each v1.0 golden input of method current
// (request_*, answer_*) as a call of alias, compares the result with the
// input's .golden file, and returns how many it compared.
func aliasGoldens(t *testing.T, alias, current string) int {
	t.Helper()
	files, err := filepath.Glob("testdata/*_*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range files {
		name := filepath.Base(in)
		if !strings.HasPrefix(name, "request_") && !strings.HasPrefix(name, "answer_") {
			continue
		}
		var c struct {
			Method           string
			Params, Response json.RawMessage
		}
		raw, err := os.ReadFile(in)
		if err != nil || json.Unmarshal(raw, &c) != nil {
			t.Fatalf("reading %s: %v", in, err)
		}
		if c.Method != current {
			continue
		}
		n++
		got, err := translateGolden(name, alias, c.Params, c.Response)
		if err != nil {
			t.Errorf("%s as %s: %v", name, alias, err)
			continue
		}
		sameAsGolden(t, strings.TrimSuffix(in, ".json")+".golden", got)
	}
	return n
}

// sameAsGolden is compareGolden without -update: an alias never writes
// a golden file.
func sameAsGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("%s differs:\ngot  %s\nwant %s", path, got, want)
	}
}

// TestTranslatableAllocatesNothing: Translatable runs on every call the gateway
// receives, in any spelling.
func TestTranslatableAllocatesNothing(t *testing.T) {
	for _, m := range []string{"SetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "tasks/get", "x"} {
		if n := testing.AllocsPerRun(100, func() { a2agen.Translatable(m) }); n != 0 {
			t.Errorf("Translatable(%q) allocates %v times", m, n)
		}
	}
}
