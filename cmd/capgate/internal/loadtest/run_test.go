package loadtest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func quickOptions() Options {
	return Options{Duration: 150 * time.Millisecond, Warmup: 30 * time.Millisecond, Conns: []int{2},
		Variants: []Variant{VariantMemory}, Redis: RedisOff, PropagationTrials: 5, HeapCapabilities: 200}
}

func TestRunQuick(t *testing.T) {
	var progress bytes.Buffer
	o := quickOptions()
	o.Progress = &progress
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := stepNames(stepsOf(rep)); got != "upstream/-/2 baseline/-/2 capgate/memory/2 mcp/memory/2 issuance/memory/2 issuance-catalog/memory/2 attenuation/memory/2" {
		t.Fatalf("rows %s", got)
	}
	if p := rep.Problems(); len(p) != 0 {
		t.Fatalf("problems: %q", p)
	}
	for _, row := range rep.Rows {
		if row.Requests == 0 || row.Latencies.P50 <= 0 {
			t.Errorf("%s: %d requests, p50 %v", row.label(), row.Requests, row.Latencies.P50)
		}
		if row.Target == TargetMCP && (!row.HasBaseline || row.UpstreamCalls < uint64(row.Requests)) {
			t.Errorf("%s: no ratio to the baseline, or %d requests with %d upstream calls", row.label(), row.Requests, row.UpstreamCalls)
		}
	}
	if !strings.HasPrefix(progress.String(), "loadtest: starting") || !strings.Contains(progress.String(), "loadtest plan: 7 runs") {
		t.Errorf("progress does not start with the plan:\n%s", progress.String())
	}
}

func stepsOf(r *Report) []Step {
	var out []Step
	for _, row := range r.Rows {
		out = append(out, row.Step)
	}
	return out
}

func TestRunRedisVariants(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("no redis-server on PATH")
	}
	o := quickOptions()
	o.Variants, o.Redis, o.Conns = []Variant{VariantRedis, VariantSynced}, RedisAuto, []int{1}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := stepNames(stepsOf(rep)); !strings.Contains(got, "capgate/redis/1 capgate/synced/1") {
		t.Fatalf("rows %s", got)
	}
	if p := rep.Problems(); len(p) != 0 {
		t.Fatalf("problems: %q", p)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "throwaway redis-server") {
		t.Errorf("notes %q do not say a redis-server was started", rep.Notes)
	}
}

func TestRunRedisOffSkipsWithANote(t *testing.T) {
	o := quickOptions()
	o.Variants, o.Only = Variants(), TargetCapgate
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := stepNames(stepsOf(rep)); got != "capgate/memory/2" {
		t.Fatalf("rows %s, want the memory variant only", got)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "redis and synced variants SKIPPED") {
		t.Errorf("notes %q do not say the Redis variants were skipped", rep.Notes)
	}
}

// A Redis the user named but that cannot be reached is an error, not a
// silent skip; its password never appears in the error.
func TestRunUnreachableRedis(t *testing.T) {
	o := quickOptions()
	o.Variants, o.Redis = []Variant{VariantMemory, VariantRedis}, "redis://:hunter2@127.0.0.1:1/0"
	_, err := Run(context.Background(), o)
	if !errors.Is(err, ErrRedisUnavailable) {
		t.Fatalf("Run = %v, want ErrRedisUnavailable", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the Redis password: %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	if got := redactURL("redis://user:hunter2@10.0.0.1:6379/0"); strings.Contains(got, "hunter2") {
		t.Fatalf("redactURL = %q", got)
	}
}

func startTestLab(t *testing.T) *Lab {
	t.Helper()
	o := quickOptions().WithDefaults()
	lab, err := StartLab(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(lab.tmpDir); !os.IsNotExist(err) {
			t.Errorf("policy folder %s left behind", lab.tmpDir)
		}
	})
	return lab
}

// Every target listens on loopback only.
func TestLabLoopbackOnly(t *testing.T) {
	lab := startTestLab(t)
	urls := []string{lab.Upstream.URL, lab.Baseline.URL}
	for _, c := range lab.Capgates {
		urls = append(urls, c.Server.URL)
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Errorf("%s is not a loopback listener", u)
		}
	}
}

// A capgate that refuses the calls must show up as errors, never as a
// fast run: the attacks below are all refused before the upstream, and
// the load test counts every one of them as failed.
func TestDriveCountsCapgateRefusals(t *testing.T) {
	lab := startTestLab(t)
	c := lab.Capgates[0]
	tampered := c.Cap
	tampered.Token = tampered.Token[:len(tampered.Token)-4] + "AAAA"
	otherHandle := c.Cap
	otherHandle.Handle = "rh_not_in_the_capability"
	noToken := c.Cap
	noToken.ID, noToken.Token = "", ""
	bob := RequestHeader()
	bob.Set("Authorization", "Bearer bob-dev-key")
	tests := []struct {
		name   string
		body   []byte
		header http.Header
		want   string
	}{
		{"tampered token", InvokeBody(tampered), nil, "-32041"},
		{"handle not in the capability", InvokeBody(otherHandle), nil, "-32045"},
		{"no capability", InvokeBody(noToken), nil, "-32040"},
		{"another caller presents alice's capability", InvokeBody(c.Cap), bob, "-32046"},
		{"bad dev key", InvokeBody(c.Cap), http.Header{"Authorization": {"Bearer nope"}}, "HTTP status: 401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Spec{URL: c.Server.URL + agentPath, Header: tt.header, Body: tt.body, Conns: 1, Duration: 50 * time.Millisecond}
			if s.Header == nil {
				s.Header = RequestHeader()
			}
			before := lab.UpstreamCalls()
			res, err := Drive(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests == 0 || res.Errors != res.Requests || !strings.Contains(res.FirstError, tt.want) {
				t.Fatalf("%d requests, %d errors, first %q: want all refused with %s", res.Requests, res.Errors, res.FirstError, tt.want)
			}
			if n := lab.UpstreamCalls() - before; n != 0 {
				t.Errorf("the upstream saw %d refused calls", n)
			}
		})
	}
}
