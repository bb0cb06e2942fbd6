package lab

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestHandshakeGolden records the host's handshake/resp to the seed
// example (tools, memory, env, chains) with its random ids replaced.
func TestHandshakeGolden(t *testing.T) {
	_, srv := newTestHost(t, Options{})
	c := open(t, srv)
	line := `{"version":"1.0","type":"handshake/req","id":"a1b2c3d4","ts":1716123456.789,"agent_id":"my-agent","agent_caps":["tools","memory","env","chains"],"auth_token":"` + testSecret + `"}`
	if status, _, err := c.Send(testCtx(t), []byte(line)); err != nil || status != 202 {
		t.Fatalf("send: %d %v", status, err)
	}
	m := next(t, c)
	got := strings.NewReplacer(m.ID, "<id>", c.SessionID, "<session>").Replace(string(m.Raw)) + "\n"
	path := filepath.Join("testdata", "handshake_resp.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("handshake/resp differs; got:\n%s\nwant:\n%s", got, want)
	}
}
