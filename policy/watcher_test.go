package policy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// watchFixture writes the quickstart policy to a temporary file and starts
// a watcher on it with a short poll interval.
func watchFixture(t *testing.T, onReload func(string, error)) (string, []byte, *policy.Watcher) {
	t.Helper()
	good, err := os.ReadFile(quickstartPolicy)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := policy.NewWatcher(context.Background(), path, policytest.QuickstartCatalog(),
		policy.WatcherOptions{Interval: time.Millisecond, OnReload: onReload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return path, good, w
}

// TestWatcherKeepsLastGoodPolicy writes a broken file and a half-written
// file while goroutines decide in a loop, and checks that no decision fails
// or changes; then a good file changes behaviour.
func TestWatcherKeepsLastGoodPolicy(t *testing.T) {
	var refused atomic.Int32
	path, good, w := watchFixture(t, func(_ string, err error) {
		if err != nil {
			refused.Add(1)
		}
	})
	bob := policytest.QuickstartPrincipals()["bob"]
	ask := policy.Input{Principal: bob, Agent: "documents", Grants: []string{"documents:read"},
		Operations: []string{"search"}, Resource: &policy.ResourceQuery{Collection: "reports"}, Now: noon}
	want := w.Current().Decide(context.Background(), ask)
	if want.Allow {
		t.Fatal("bob may search reports under the quickstart policy")
	}
	decisions, stop := decideInLoop(t, w, ask, want)
	broken := []byte(strings.Replace(string(good), "operations: [retrieve, list]", "operations: [retrieve, list, search]\n    grnats: []", 1))
	cut := strings.Index(string(good), "  - id: contractors-read-reports") + len("  - id: contractors-read-reports\n    descr")
	for _, bad := range [][]byte{broken, good[:cut], []byte("version: 1\nrules:\n  - id: x\n    principals: {groups: [contr")} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := w.Reload(context.Background()); !errors.Is(err, policy.ErrInvalidPolicy) {
			t.Errorf("Reload of a bad file = %v, want ErrInvalidPolicy", err)
		}
		waitFor(t, func() bool { return decisions.Load() > 50 })
		decisions.Store(0)
	}
	stop()
	if refused.Load() < 3 {
		t.Errorf("OnReload saw %d refusals, want at least 3", refused.Load())
	}

	search := strings.Replace(string(good), "operations: [retrieve, list]", "operations: [retrieve, list, search]", 1)
	if err := os.WriteFile(path, []byte(search), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return w.Current().Decide(context.Background(), ask).Allow }) // picked up by polling
	if err := w.Reload(context.Background()); err != nil {
		t.Errorf("Reload of the current good file = %v", err)
	}
}

// decideInLoop starts goroutines that decide ask against w.Current() until
// stop is called, failing the test if a decision differs from want.
func decideInLoop(t *testing.T, w *policy.Watcher, ask policy.Input, want policy.Decision) (*atomic.Int64, func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var decisions atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if got := w.Current().Decide(context.Background(), ask); !reflect.DeepEqual(got, want) {
					t.Errorf("decision changed under a refused policy: %+v", got)
					return
				}
				decisions.Add(1)
			}
		}()
	}
	return &decisions, func() { close(done); wg.Wait() }
}

// TestWatcherInitialLoadMustSucceed checks NewWatcher's errors.
func TestWatcherInitialLoadMustSucceed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content *string
		wantErr error
	}{
		{"missing file", nil, policy.ErrReadPolicy},
		{"broken file", ptr("version: 1\nrulez: []\n"), policy.ErrInvalidPolicy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if tc.content != nil {
				if err := os.WriteFile(path, []byte(*tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			w, err := policy.NewWatcher(context.Background(), path, testCatalog(), policy.WatcherOptions{Interval: -1})
			if w != nil || !errors.Is(err, tc.wantErr) {
				t.Errorf("NewWatcher = %v, %v; want %v", w, err, tc.wantErr)
			}
		})
	}
}

// TestWatcherReloadAfterClose checks the closed state.
func TestWatcherReloadAfterClose(t *testing.T) {
	_, _, w := watchFixture(t, nil)
	before := w.Current()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Reload(context.Background()); !errors.Is(err, policy.ErrWatcherClosed) {
		t.Errorf("Reload after Close = %v", err)
	}
	if w.Current() != before {
		t.Error("Close changed the current policy")
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestWatcherMissingFileKeepsServing checks that a deleted file is refused.
func TestWatcherMissingFileKeepsServing(t *testing.T) {
	path, _, w := watchFixture(t, nil)
	before := w.Current()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := w.Reload(context.Background()); !errors.Is(err, policy.ErrReadPolicy) {
		t.Errorf("Reload of a missing file = %v", err)
	}
	if w.Current() != before {
		t.Error("policy changed after the file disappeared")
	}
}

// waitFor polls cond until it holds or a generous deadline passes. It is a
// wait, not a timing assertion: only a hang fails it.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }

// TestWatcherSetCatalog checks that a catalog change re-validates the
// policy, and that a catalog the policy does not fit is refused.
func TestWatcherSetCatalog(t *testing.T) {
	_, _, w := watchFixture(t, nil)
	before := w.Current()
	shrunk := policytest.QuickstartCatalog()
	delete(shrunk.Agents["documents"].Grants, "documents:write")
	if err := w.SetCatalog(context.Background(), shrunk); !errors.Is(err, policy.ErrUnknownGrant) {
		t.Errorf("SetCatalog without documents:write = %v, want ErrUnknownGrant", err)
	}
	if w.Current() != before {
		t.Error("a refused catalog replaced the policy")
	}
	grown := policytest.QuickstartCatalog()
	grown.Agents["documents"].Grants["documents:export"] = policy.Grant{ID: "documents:export", Operations: []string{"export"}}
	if err := w.SetCatalog(context.Background(), grown); err != nil {
		t.Fatal(err)
	}
	bob := policytest.QuickstartPrincipals()["bob"]
	d := w.Current().Decide(context.Background(), policy.Input{Principal: bob, Agent: "documents",
		Grants: []string{"documents:export"}, Resource: &policy.ResourceQuery{Collection: "hr"}, Now: noon})
	if d.Allow || len(d.Matched) == 0 || d.Matched[0].ID != "contractors-never-hr" {
		t.Errorf("the deny rule's \"*\" grants did not expand to the new grant: %+v", d)
	}
}

// TestWatcherReloadUnchangedIsAnAttempt: an explicit Reload of a file that
// did not change is still reported to OnReload, so reload metrics count a
// SIGHUP on an unchanged file.
func TestWatcherReloadUnchangedIsAnAttempt(t *testing.T) {
	var mu sync.Mutex
	var revs []string
	_, good, w := watchFixture(t, func(rev string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			revs = append(revs, rev)
		}
	})
	for range 2 {
		if err := w.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := policy.Revision(good); len(revs) != 2 || revs[0] != want || revs[1] != want {
		t.Errorf("OnReload saw %v, want two reports of revision %s", revs, want)
	}
}
