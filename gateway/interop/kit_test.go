package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// installHint is how to install the JavaScript kit.
const installHint = "run `npm ci --prefix gateway/interop/js` first"

// scriptTimeout bounds one run of a client script.
const scriptTimeout = 60 * time.Second

// jsKit returns the kit's directory once node and its modules are there.
// Without them the test skips, or fails when CI is set: CI installs them.
func jsKit(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("js")
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		missing = "js/node_modules is not installed: " + installHint
	}
	if missing == "" {
		return dir
	}
	if os.Getenv("CI") != "" {
		t.Fatal(missing)
	}
	t.Skip(missing)
	return ""
}

// startJSAgent starts js/agent.mjs in the given mode ("v1" or "both") and
// returns its base URL. The process is killed when the test ends.
func startJSAgent(t *testing.T, kit, mode string) string {
	t.Helper()
	cmd := exec.Command("node", "agent.mjs", mode)
	cmd.Dir = kit
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
	}()
	var ready struct{ URL string }
	select {
	case l := <-line:
		if err := json.Unmarshal([]byte(l), &ready); err != nil || ready.URL == "" {
			t.Fatalf("agent.mjs %s: want a ready line, got %q (%v); stderr: %s", mode, l, err, stderr.String())
		}
	case <-time.After(scriptTimeout):
		t.Fatalf("agent.mjs %s did not start; stderr: %s", mode, stderr.String())
	}
	return ready.URL
}

// runClient runs js/client.mjs with a scenario and its arguments and
// decodes the JSON it prints into out.
func runClient(t *testing.T, kit, scenario string, args map[string]any, out any) {
	t.Helper()
	runScript(t, kit, out, args, "client.mjs", scenario)
}

// runScript runs a script of the kit with its leading arguments and the
// JSON of args last, and decodes the JSON it prints into out.
func runScript(t *testing.T, kit string, out any, args map[string]any, script ...string) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append(script, string(raw))...)
	cmd.Dir = kit
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	name := strings.Join(script, " ")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", name, err, stdout.String(), stderr.String())
	}
	t.Logf("%s: %s", name, bytes.TrimSpace(stdout.Bytes()))
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s printed no JSON: %v: %s", name, err, stdout.String())
	}
}
