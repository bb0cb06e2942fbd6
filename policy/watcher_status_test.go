package policy_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/capgate/capgate/policy"
)

// TestWatcherStatus: Status shows the last reload attempt, its error
// while a refused policy keeps the previous one serving, and the success
// that follows.
func TestWatcherStatus(t *testing.T) {
	path, good, w := watchFixture(t, nil)
	if s := w.Status(); s.Attempts != 0 || s.Err != nil {
		t.Fatalf("before any reload: %+v", s)
	}
	if err := os.WriteFile(path, []byte("rules: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := w.Reload(context.Background())
	if s := w.Status(); err == nil || !errors.Is(s.Err, policy.ErrInvalidPolicy) || s.Attempts < 1 {
		t.Fatalf("after a broken file: err %v, status %+v", err, s)
	}
	if got, want := w.Current().Revision(), policy.Revision(good); got != want {
		t.Errorf("serving %s, want the last good %s", got, want)
	}
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := w.Status(); s.Err != nil || s.Revision != policy.Revision(good) {
		t.Errorf("after the good file again: %+v", s)
	}
}
