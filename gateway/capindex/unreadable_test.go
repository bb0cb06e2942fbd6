package capindex_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/capindex"
)

// TestPartial: only an error that says nothing but which records could
// not be read makes a listing partial; one that is or joins anything
// else, ErrUnavailable above all, fails it whatever ids it names.
func TestPartial(t *testing.T) {
	u := &capindex.UnreadableError{IDs: []string{"cap_1", "cap_2"}}
	down := fmt.Errorf("%w: connection refused", capindex.ErrUnavailable)
	tests := []struct {
		name    string
		err     error
		wantIDs []string
		wantOK  bool
	}{
		{name: "nil", err: nil},
		{name: "unreadable", err: u, wantIDs: u.IDs, wantOK: true},
		{name: "wrapped unreadable", err: fmt.Errorf("listing: %w", u), wantIDs: u.IDs, wantOK: true},
		{name: "joined with ErrUnreadable", err: errors.Join(capindex.ErrUnreadable, u), wantIDs: u.IDs, wantOK: true},
		{name: "unavailable", err: down},
		{name: "unavailable joined with unreadable", err: errors.Join(u, down)},
		{name: "unavailable wrapping unreadable", err: fmt.Errorf("%w: %w", capindex.ErrUnavailable, u)},
		{name: "unreadable joined with another error", err: errors.Join(u, errors.New("boom"))},
		{name: "unreadable joined with a deadline", err: errors.Join(u, context.DeadlineExceeded)},
		{name: "unreadable naming no ids", err: &capindex.UnreadableError{}},
		{name: "bare ErrUnreadable", err: capindex.ErrUnreadable},
		{name: "another error", err: errors.New("boom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, ok := capindex.Partial(tt.err)
			if ok != tt.wantOK || !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("Partial(%v) = %v, %v; want %v, %v", tt.err, ids, ok, tt.wantIDs, tt.wantOK)
			}
		})
	}
}

// TestUnreadableErrorMessage: the message counts every id, names the
// first ten, and names the missing ones apart.
func TestUnreadableErrorMessage(t *testing.T) {
	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf("c%02d", i))
	}
	tests := []struct {
		name string
		err  *capindex.UnreadableError
		want string
	}{
		{"one", &capindex.UnreadableError{IDs: []string{"c1"}}, "capindex: 1 unreadable record: c1"},
		{"one missing", &capindex.UnreadableError{IDs: []string{"c1", "c2"}, Missing: []string{"c2"}},
			"capindex: 2 unreadable records: c1, c2 (1 missing: c2)"},
		{"many missing", &capindex.UnreadableError{IDs: many, Missing: many},
			"capindex: 12 unreadable records: c00, c01, c02, c03, c04, c05, c06, c07, c08, c09 and 2 more " +
				"(12 missing: c00, c01, c02, c03, c04, c05, c06, c07, c08, c09 and 2 more)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if !errors.Is(tt.err, capindex.ErrUnreadable) {
			t.Errorf("%s: does not wrap ErrUnreadable", tt.name)
		}
	}
}

// TestIDsFromJoinedErrors: ids are gathered from every *UnreadableError
// an error joins or wraps, sorted and once each, not the first only.
func TestIDsFromJoinedErrors(t *testing.T) {
	a := &capindex.UnreadableError{IDs: []string{"cap_b", "cap_a"}, Missing: []string{"cap_b"}}
	b := &capindex.UnreadableError{IDs: []string{"cap_c", "cap_a"}, Missing: []string{"cap_c"}}
	err := errors.Join(a, fmt.Errorf("second listing: %w", b))
	if got := capindex.UnreadableIDs(err); !slices.Equal(got, []string{"cap_a", "cap_b", "cap_c"}) {
		t.Errorf("UnreadableIDs = %v", got)
	}
	if got := capindex.MissingIDs(err); !slices.Equal(got, []string{"cap_b", "cap_c"}) {
		t.Errorf("MissingIDs = %v", got)
	}
	if ids, ok := capindex.Partial(err); !ok || len(ids) != 3 {
		t.Errorf("Partial = %v, %v; want the three ids", ids, ok)
	}
	if got := capindex.UnreadableIDs(errors.New("other")); got != nil {
		t.Errorf("UnreadableIDs(other) = %v, want nil", got)
	}
}
