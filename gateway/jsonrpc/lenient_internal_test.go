package jsonrpc

import (
	"strings"
	"testing"
)

// TestNameIs: the spellings a client reads as a name are read as it.
func TestNameIs(t *testing.T) {
	tests := []struct {
		k, name string
		want    bool
	}{
		{"taskId", "taskId", true},
		{"TASKID", "taskId", true},
		{"task_id", "taskId", true},
		{"task-id", "taskId", true},
		{"taſkId", "taskId", true}, // encoding/json folds the long s
		{"total_size", "totalSize", true},
		{"taskIds", "taskId", false},
		{"task.id", "taskId", false},
	}
	for _, tt := range tests {
		if got := LenientName(tt.k, tt.name); got != tt.want {
			t.Errorf("LenientName(%q, %q) = %v, want %v", tt.k, tt.name, got, tt.want)
		}
	}
}

// FuzzFoldedIs holds the fast path for plain keys equal to nameIs.
func FuzzFoldedIs(f *testing.F) {
	for _, k := range []string{"taskId", "Task_ID", "task-id", "status", "kind_", "-", ""} {
		f.Add(k, "taskid")
	}
	f.Fuzz(func(t *testing.T, k, name string) {
		if !PlainName([]byte(k)) {
			return
		}
		name = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
		if !isPlainLower(name) {
			return
		}
		if got, want := LenientPlainName([]byte(k), name), LenientName(k, name); got != want {
			t.Fatalf("LenientPlainName(%q, %q) = %v, nameIs says %v", k, name, got, want)
		}
	})
}

func isPlainLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return true
}
