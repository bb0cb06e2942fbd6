package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// readmeAddr is the gateway address the README's walks use.
const readmeAddr = "http://127.0.0.1:8080"

// TestReadmeMCP runs README "Fronting an MCP server", "On the quickstart,
// with curl", against a quickstart world: the challenge without
// credentials, then each call the section makes with its mcp function,
// with the headers the function sends, whose answer must hold everything
// the section shows (answers are abridged: a shown member must be there
// with the shown value, "…" standing for any value), with the CAP and RH
// the section takes from the issuance answer. Only the one allowed tool
// call reaches the files server.
func TestReadmeMCP(t *testing.T) {
	section := readmeSection(t, "Fronting an MCP server")
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	challenge := regexp.MustCompile("(?s)grep -i '\\^www-authenticate'\n```\n+```text\n(.*?)\n```").FindStringSubmatch(section)
	if challenge == nil {
		t.Fatal("the section shows no challenge")
	}
	resp := post(t, w.URL+"/mcp/files", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.Header{"Content-Type": {"application/json"}})
	if got := "Www-Authenticate: " + resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || got != strings.ReplaceAll(challenge[1], readmeAddr, w.URL) {
		t.Errorf("without credentials: %d %s\nthe README shows %s", resp.StatusCode, got, challenge[1])
	}

	fn := regexp.MustCompile("(?s)mcp\\(\\) \\{ curl -s " + regexp.QuoteMeta(readmeAddr) + "/mcp/files (.*?); echo; \\}").FindStringSubmatch(section)
	if fn == nil {
		t.Fatal("the section defines no mcp function")
	}
	header := http.Header{"Authorization": {"Bearer " + quickstart.AliceKey}}
	for _, h := range regexp.MustCompile(`-H '([^:']+): ([^']*)'`).FindAllStringSubmatch(fn[1], -1) {
		header.Set(h[1], h[2])
	}
	if header.Get("Accept") == "" || header.Get("Content-Type") == "" {
		t.Fatalf("the mcp function sends no Accept or Content-Type: %s", fn[1])
	}
	steps := regexp.MustCompile("(?s)```sh\n(?:ANSWER=\\$\\()?mcp '([^\n]*)'\\)?\n(.*?)```\n+```json\n(.*?)\n```").FindAllStringSubmatch(section, -1)
	if len(steps) < 7 {
		t.Fatalf("found %d calls with their answers, want at least 7", len(steps))
	}
	vars := map[string]string{}
	for _, step := range steps {
		call := step[1]
		for name, v := range vars {
			call = strings.ReplaceAll(call, "'$"+name+"'", v)
		}
		resp := post(t, w.URL+"/mcp/files", call, header)
		body, _ := io.ReadAll(resp.Body)
		shownText := step[3]
		for name, v := range vars {
			shownText = strings.ReplaceAll(shownText, "$"+name, v)
		}
		var got, shown any
		if json.Unmarshal(body, &got) != nil || json.Unmarshal([]byte(shownText), &shown) != nil || !holds(got, shown) {
			t.Errorf("mcp '%s'\nanswered %s\nthe README shows %s", call, body, step[3])
		}
		if strings.Contains(step[2], "CAP=$(") {
			vars = readmeVars(t, body)
		}
	}
	calls := w.Files.Calls()
	if len(calls) != 1 || calls[0].Path != "files/finance/q1-2026.md" {
		t.Errorf("the files server saw %+v, want the one read_file the section makes, of the storage id", calls)
	}
}

// readmeVars are the CAP and RH the section takes from an issuance
// answer with jq.
func readmeVars(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var a struct {
		Result struct {
			Capabilities []struct {
				ID              string `json:"id"`
				ResourceHandles []struct {
					Handle string `json:"handle"`
				} `json:"resourceHandles"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &a) != nil || len(a.Result.Capabilities) == 0 || len(a.Result.Capabilities[0].ResourceHandles) == 0 {
		t.Fatalf("no capability with a handle in %s", body)
	}
	c := a.Result.Capabilities[0]
	return map[string]string{"CAP": c.ID, "RH": c.ResourceHandles[0].Handle}
}

// holds reports whether got has everything shown has: every member of an
// object, every element of a list (same length), equal values, "…" for
// any value.
func holds(got, shown any) bool {
	switch s := shown.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range s {
			if gv, ok := g[k]; !ok || !holds(gv, v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return false
		}
		for i := range s {
			if !holds(g[i], s[i]) {
				return false
			}
		}
		return true
	case string:
		return s == "…" || got == s
	}
	return got == shown
}

// post sends body to url with header and returns the answer, whose body
// the test closes.
func post(t *testing.T, url, body string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
