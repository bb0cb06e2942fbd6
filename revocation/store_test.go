package revocation

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidateID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr error
	}{
		{"rv_AAAAAAAAAAAAAAAAAAAAAA", nil},
		{"a", nil},
		{"~!#$%&*+,-./:;<=>?@[]^_`{|}", nil},
		{strings.Repeat("a", MaxIDLength), nil},
		{"", ErrInvalidID},
		{strings.Repeat("a", MaxIDLength+1), ErrInvalidID},
		{"rv a", ErrInvalidID},
		{"rv\ta", ErrInvalidID},
		{"rv\x7f", ErrInvalidID},
		{"rv_é", ErrInvalidID},
	}
	for _, tc := range tests {
		if err := validateID(tc.id); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("validateID(%q) = %v, want %v", tc.id, err, tc.wantErr)
		}
	}
}

func TestValidatePrincipal(t *testing.T) {
	tests := []struct {
		p       string
		wantErr error
	}{
		{"user:alice@example.com", nil},
		{"agent:summarizer", nil},
		{"user:Zoë Noël", nil},
		{strings.Repeat("p", MaxPrincipalLength), nil},
		{"", ErrInvalidPrincipal},
		{strings.Repeat("p", MaxPrincipalLength+1), ErrInvalidPrincipal},
		{"user:a\nb", ErrInvalidPrincipal},
		{"user:\u0085", ErrInvalidPrincipal},
		{"user:\xc3", ErrInvalidPrincipal},
	}
	for _, tc := range tests {
		if err := validatePrincipal(tc.p); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("validatePrincipal(%q) = %v, want %v", tc.p, err, tc.wantErr)
		}
	}
}

func TestValidateTime(t *testing.T) {
	tests := []struct {
		name    string
		t       time.Time
		wantErr error
	}{
		{"now", time.Now(), nil},
		{"epoch", time.Unix(0, 0), nil},
		{"zero", time.Time{}, ErrInvalidTime},
		{"before epoch", time.Unix(-1, 0), ErrInvalidTime},
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), ErrInvalidTime},
	}
	for _, tc := range tests {
		if err := validateTime("t", tc.t); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%s: validateTime = %v, want %v", tc.name, err, tc.wantErr)
		}
	}
}

func TestMilliRounding(t *testing.T) {
	base := time.UnixMilli(1700000000000)
	tests := []struct {
		name string
		t    time.Time
		ceil int64
	}{
		{"exact", base, 1700000000000},
		{"1ns later rounds up", base.Add(time.Nanosecond), 1700000000001},
		{"999µs later rounds up", base.Add(999 * time.Microsecond), 1700000000001},
	}
	for _, tc := range tests {
		if got := ceilMilli(tc.t); got != tc.ceil {
			t.Errorf("%s: ceilMilli = %d, want %d", tc.name, got, tc.ceil)
		}
	}
	if got := issuedMilli(time.Time{}); got != math.MinInt64 {
		t.Errorf("issuedMilli(zero) = %d, want MinInt64 (before every cutoff)", got)
	}
	if got := issuedMilli(base.Add(999 * time.Microsecond)); got != 1700000000000 {
		t.Errorf("issuedMilli rounds up to %d, want down", got)
	}
}

func TestRoundingOnlyRevokesMore(t *testing.T) {
	// A cutoff 0.5 ms after a token's issued-at must revoke it, and an
	// until 0.5 ms in the future must still match.
	clock := &fakeClock{t: time.UnixMilli(1700000000000)}
	m := NewMemory(MemoryOptions{Now: clock.Now})
	defer func() { _ = m.Close() }()
	iat := clock.t.Add(100 * time.Microsecond)
	if err := m.RevokePrincipal(t.Context(), "user:a", iat.Add(500*time.Microsecond), clock.t.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := m.Revoke(t.Context(), "rv_a", clock.t.Add(500*time.Microsecond)); err != nil {
		t.Fatal(err)
	}
	if res, _ := m.Check(t.Context(), Query{IDs: []string{"rv_b"}, Principal: "user:a", IssuedAt: iat}); !res.Revoked {
		t.Error("sub-millisecond cutoff did not revoke a token issued just before it")
	}
	if res, _ := m.Check(t.Context(), Query{IDs: []string{"rv_a"}}); !res.Revoked {
		t.Error("sub-millisecond until expired early")
	}
}

func TestRedisOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    RedisOptions
		wantErr error
	}{
		{"zero", RedisOptions{}, nil},
		{"custom", RedisOptions{Prefix: "tenant-a:", Timeout: time.Second}, nil},
		{"prefix with space", RedisOptions{Prefix: "a b"}, ErrInvalidOptions},
		{"prefix with newline", RedisOptions{Prefix: "a\n"}, ErrInvalidOptions},
		{"prefix too long", RedisOptions{Prefix: strings.Repeat("p", 129)}, ErrInvalidOptions},
		{"negative timeout", RedisOptions{Timeout: -1}, ErrInvalidOptions},
		{"bad breaker", RedisOptions{Breaker: BreakerOptions{FailureThreshold: -1}}, ErrInvalidOptions},
	}
	for _, tc := range tests {
		if err := tc.opts.Validate(); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%s: Validate() = %v, want %v", tc.name, err, tc.wantErr)
		}
	}
}

func TestSyncedOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    SyncedOptions
		wantErr error
	}{
		{"zero", SyncedOptions{}, nil},
		{"custom", SyncedOptions{MaxStaleness: time.Second, PingInterval: 100 * time.Millisecond}, nil},
		{"negative staleness", SyncedOptions{MaxStaleness: -1}, ErrInvalidOptions},
		{"staleness too small to ping", SyncedOptions{MaxStaleness: time.Millisecond}, ErrInvalidOptions},
		{"negative ping", SyncedOptions{PingInterval: -1}, ErrInvalidOptions},
		{"ping not shorter than staleness", SyncedOptions{MaxStaleness: time.Second, PingInterval: time.Second}, ErrInvalidOptions},
		{"negative prune", SyncedOptions{PruneInterval: -1}, ErrInvalidOptions},
	}
	for _, tc := range tests {
		if err := tc.opts.Validate(); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%s: Validate() = %v, want %v", tc.name, err, tc.wantErr)
		}
	}
}
