package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer a command may write while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveDemo runs demo --serve with args until the test ends, and returns
// its banner once printed.
func serveDemo(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		now: time.Now, loadCatalog: loadCatalog}
	done := make(chan int)
	go func() { done <- run(ctx, append([]string{"demo", "--serve"}, args...), e) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("demo --serve exited %d: %s", code, errb.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "other ports:") {
		if time.Now().After(deadline) {
			t.Fatalf("no banner:\n%s\n%s", out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out.String()
}

// TestDemoServeBanner: demo --serve prints the URL of everything it
// serves (each A2A agent and A2E host, metrics, admin API, console), and
// each answers there.
func TestDemoServeBanner(t *testing.T) {
	banner := serveDemo(t, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0")
	urls := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^  (\S.*?)?\s+(http://\S+)`).FindAllStringSubmatch(banner, -1) {
		urls[m[2]] = m[1]
	}
	var gw, admin string
	for u, label := range urls {
		switch label {
		case "admin API":
			admin = u
		case "metrics":
			gw = strings.TrimSuffix(u, "/metrics")
		}
	}
	if gw == "" || admin == "" {
		t.Fatalf("the banner names no gateway or admin URL:\n%s", banner)
	}
	// Each URL the banner must show, and a request that it answers.
	checks := []struct{ shown, method, probe, key string }{
		{gw + "/a2a/documents", http.MethodGet, "/.well-known/agent-card.json", ""},
		{gw + "/a2a/summarizer", http.MethodGet, "/.well-known/agent-card.json", ""},
		{gw + "/a2a/notes", http.MethodGet, "/.well-known/agent-card.json", ""},
		{gw + "/a2e/lab/", http.MethodPost, "session", ""},
		{gw + "/metrics", http.MethodGet, "", ""},
		{admin, http.MethodGet, "/admin/policy", "admin-dev-key"},
		{admin + "/console/", http.MethodGet, "login", ""},
	}
	for _, c := range checks {
		if _, ok := urls[c.shown]; !ok {
			t.Errorf("the banner does not show %s:\n%s", c.shown, banner)
		}
		req, _ := http.NewRequest(c.method, c.shown+c.probe, nil)
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.shown+c.probe, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s: %s", c.method, c.shown+c.probe, resp.Status)
		}
	}
	if !strings.Contains(banner, "pass them --admin "+admin) {
		t.Errorf("an admin API off its default port is not named for revoke:\n%s", banner)
	}
}

// TestDemoServePortTaken: when a port demo --serve needs is taken, the
// error names it and the flag that moves it.
func TestDemoServePortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().String()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--addr", taken, "--admin-addr", "127.0.0.1:0"}, "--addr"},
		{[]string{"--addr", "127.0.0.1:0", "--admin-addr", taken}, "--admin-addr"},
	} {
		code, _, errOut := runCmd(t, append([]string{"demo", "--serve"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, taken+" is taken") || !strings.Contains(errOut, "move it with "+tc.flag+" HOST:PORT") {
			t.Errorf("demo --serve %v: exit %d, %q; want 1 naming %s and %s", tc.args, code, errOut, taken, tc.flag)
		}
	}
}
