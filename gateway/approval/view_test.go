package approval_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
)

func TestDurations(t *testing.T) {
	tests := []struct {
		d            time.Duration
		short, human string
	}{
		{15 * time.Minute, "15m", "15 min"},
		{time.Hour, "1h", "1 h"},
		{90 * time.Minute, "1h30m", "1 h 30 min"},
		{90*time.Minute + 10*time.Second, "1h30m10s", "1 h 30 min"},
		{45 * time.Second, "45s", "45 s"},
		{49 * time.Hour, "49h", "2 days 1 h"},
		{24 * time.Hour, "24h", "1 day"},
		{0, "0s", "0s"},
		{500 * time.Millisecond, "500ms", "500ms"},
	}
	for _, tc := range tests {
		if got := policy.FormatDuration(tc.d); got != tc.short {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.short)
		}
		if got := approval.HumanDuration(tc.d); got != tc.human {
			t.Errorf("HumanDuration(%v) = %q, want %q", tc.d, got, tc.human)
		}
	}
}

// TestShown: the admin API's form writes lifetimes as "15m" and seconds,
// keeps no real id or MAC, and reads back.
func TestShown(t *testing.T) {
	r := sample()
	r.MAC, r.ActionHash = "mac", r.ComputeActionHash()
	b, err := json.Marshal(r.Show())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ttl":"15m"`, `"ttlSeconds":900`, `"wait":"1h"`, `"waitSeconds":3600`, `"actionHash":"sha256:`, `"displayName":"HR handbook"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("shown lacks %s: %s", want, b)
		}
	}
	if strings.Contains(string(b), "doc-9") || strings.Contains(string(b), `"mac"`) || strings.Contains(string(b), "900000000000") {
		t.Errorf("shown holds a real id, the MAC or nanoseconds: %s", b)
	}
	var back approval.Shown
	if err := json.Unmarshal(b, &back); err != nil || back.Grants[0].TTLSeconds != 900 || back.Grants[0].Grant.Grant != "documents:write" || back.ID != r.ID {
		t.Fatalf("read back %+v: %v", back, err)
	}
}
