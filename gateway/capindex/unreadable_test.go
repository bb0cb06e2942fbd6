package capindex_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/capgate/capgate/gateway/capindex"
)

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
