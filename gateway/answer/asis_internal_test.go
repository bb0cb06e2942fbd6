package answer

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

func TestPlainAsIs(t *testing.T) {
	for _, tc := range []struct {
		content string
		want    bool
	}{
		{"", true},
		{"the quick brown fox, see reports/q1-financial and more", true},
		{"a<b", false},
		{"a>b", false},
		{"a&b", false},
		{"del\x7f", false},
		{"é", false},
		{"twelve bytes é", false},
		{"sixteen bytes ok", true},
	} {
		if got := plainAsIs([]byte(tc.content)); got != tc.want {
			t.Errorf("plainAsIs(%q) = %v, want %v", tc.content, got, tc.want)
		}
	}
}

// FuzzPlainAsIs: on the content of any plain literal of valid JSON,
// plainAsIs says what jsonrpc.AsIs says.
func FuzzPlainAsIs(f *testing.F) {
	for _, s := range []string{"plain text", "a<b", "é", "abcdefgh\x7f", "0123456789abcdef&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(`"`+s+`"`)) || !jsonrpc.PlainString([]byte(s)) {
			return
		}
		if got, want := plainAsIs([]byte(s)), jsonrpc.AsIs(s); got != want {
			t.Fatalf("plainAsIs(%q) = %v, AsIs says %v", s, got, want)
		}
	})
}
