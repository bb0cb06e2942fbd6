package audit

import (
	"slices"
	"testing"
)

// TestInsertMemberKeepsOrder: inserting the chain's members one by one
// into sorted attributes gives what sorting everything gives.
func TestInsertMemberKeepsOrder(t *testing.T) {
	keys := []string{"a", "agent", "caller", "z", "Z", "_x", "handles", "zz"}
	for _, add := range [][]string{
		{FieldEvent, FieldChain, FieldTime, FieldSeq, FieldPrev, FieldHash},
		{FieldHash, FieldPrev},
		{"0", "~", "agenta"},
	} {
		var ms, want []member
		for _, k := range keys {
			ms = append(ms, member{key: k})
		}
		sortMembers(ms)
		want = slices.Clone(ms)
		for _, k := range add {
			ms = insertMember(ms, member{key: k})
			want = append(want, member{key: k})
		}
		sortMembers(want)
		if !slices.EqualFunc(ms, want, func(a, b member) bool { return a.key == b.key }) {
			t.Errorf("inserting %q: got %v, want %v", add, ms, want)
		}
	}
}
