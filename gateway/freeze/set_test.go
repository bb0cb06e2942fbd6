package freeze_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
)

// fixedClock is a clock that moves only when told.
type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { return c.t }

func newMemory(t *testing.T, c *fixedClock) *freeze.Set {
	t.Helper()
	s := freeze.New(context.Background(), freeze.Options{Runtime: platform.Runtime{Now: c.now}})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestChanges(t *testing.T) {
	tests := []struct {
		name    string
		op      func(context.Context, *freeze.Set) (freeze.Entry, error)
		wantErr error
	}{
		{"freeze an agent", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Agent, "billing", "alice", "exfiltration suspected")
		}, nil},
		{"freeze a principal", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Principal, "user:bob", "alice", "stolen laptop")
		}, nil},
		{"no reason", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Agent, "billing", "alice", "  ")
		}, freeze.ErrInvalid},
		{"no name", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Agent, "", "alice", "why")
		}, freeze.ErrInvalid},
		{"unknown kind", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Kind("group"), "x", "alice", "why")
		}, freeze.ErrInvalid},
		{"overlong reason", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Agent, "billing", "alice", strings.Repeat("x", freeze.MaxReason+1))
		}, freeze.ErrInvalid},
		{"unfreeze what is not frozen", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			return s.Unfreeze(ctx, freeze.Agent, "billing", "alice", "all clear")
		}, freeze.ErrNotFrozen},
		{"unfreeze without a reason", func(ctx context.Context, s *freeze.Set) (freeze.Entry, error) {
			if _, err := s.Freeze(ctx, freeze.Agent, "billing", "alice", "why"); err != nil {
				return freeze.Entry{}, err
			}
			return s.Unfreeze(ctx, freeze.Agent, "billing", "alice", "")
		}, freeze.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMemory(t, &fixedClock{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
			_, err := tt.op(context.Background(), s)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestCheckAndUnfreeze(t *testing.T) {
	ctx := context.Background()
	c := &fixedClock{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := newMemory(t, c)
	if _, err := s.Freeze(ctx, freeze.Principal, "user:bob", "alice", "stolen laptop"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Freeze(ctx, freeze.Agent, "billing", "alice", "leaking"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		agent      string
		principals []string
		want       string
	}{
		{"billing", nil, "agent:billing"},
		{"search", []string{"user:carol", "user:bob"}, "principal:user:bob"},
		{"search", []string{"user:carol"}, ""},
		{"", []string{""}, ""},
	}
	for _, tt := range tests {
		e, err := s.Check(ctx, tt.agent, tt.principals...)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if e != nil {
			got = string(e.Kind) + ":" + e.Name
		}
		if got != tt.want {
			t.Errorf("Check(%q, %q) = %q, want %q", tt.agent, tt.principals, got, tt.want)
		}
	}
	if got := s.List(); len(got) != 2 || got[0].Name != "billing" || got[0].Reason != "leaking" || got[0].By != "alice" {
		t.Fatalf("List = %+v", got)
	}
	// The operator's clock goes back: the unfreeze still orders after.
	c.t = c.t.Add(-time.Hour)
	u, err := s.Unfreeze(ctx, freeze.Agent, "billing", "dave", "fixed")
	if err != nil {
		t.Fatal(err)
	}
	if u.Frozen || u.By != "dave" {
		t.Fatalf("unfreeze entry %+v", u)
	}
	if e, _ := s.Check(ctx, "billing"); e != nil {
		t.Fatalf("billing still frozen: %+v", e)
	}
	if got := s.List(); len(got) != 1 || got[0].Name != "user:bob" {
		t.Fatalf("List after unfreeze = %+v", got)
	}
}
