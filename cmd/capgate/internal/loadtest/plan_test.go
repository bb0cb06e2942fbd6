package loadtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func stepNames(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "%s/%s/%d ", s.Target, variantLabel(s.Variant), s.Conns)
	}
	return strings.TrimSpace(b.String())
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		variants []Variant
		want     string
	}{
		{"default", Options{}, Variants(),
			"upstream/-/1 baseline/-/1 capgate/memory/1 capgate/redis/1 capgate/synced/1 mcp/memory/1 " +
				"upstream/-/64 baseline/-/64 capgate/memory/64 capgate/redis/64 capgate/synced/64 mcp/memory/64 " +
				"issuance/memory/64 issuance-catalog/memory/64 attenuation/memory/64 attenuation/redis/64 attenuation/synced/64"},
		{"redis skipped", Options{}, []Variant{VariantMemory},
			"upstream/-/1 baseline/-/1 capgate/memory/1 mcp/memory/1 upstream/-/64 baseline/-/64 capgate/memory/64 mcp/memory/64 " +
				"issuance/memory/64 issuance-catalog/memory/64 attenuation/memory/64"},
		{"ops at the largest count", Options{Conns: []int{8, 2}}, []Variant{VariantSynced},
			"upstream/-/8 baseline/-/8 capgate/synced/8 mcp/synced/8 upstream/-/2 baseline/-/2 capgate/synced/2 mcp/synced/2 " +
				"issuance/synced/8 issuance-catalog/memory/8 attenuation/synced/8"},
		{"only capgate", Options{Only: TargetCapgate}, Variants(),
			"capgate/memory/1 capgate/redis/1 capgate/synced/1 capgate/memory/64 capgate/redis/64 capgate/synced/64"},
		{"only baseline", Options{Only: TargetBaseline, Conns: []int{4}}, Variants(), "baseline/-/4"},
		{"only mcp", Options{Only: TargetMCP}, Variants(), "mcp/memory/1 mcp/memory/64"},
		{"no variant", Options{Conns: []int{1}}, nil, "upstream/-/1 baseline/-/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stepNames(tt.opts.WithDefaults().Plan(tt.variants)); got != tt.want {
				t.Fatalf("plan:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The default plan fits the two minutes the README promises, with room
// for setup.
func TestDefaultBudget(t *testing.T) {
	o := Options{}.WithDefaults()
	if b := o.Budget(o.Plan(Variants())); b != 102*time.Second {
		t.Fatalf("default budget %v, want 102s", b)
	}
	o.Warmup = -1
	if b := o.Budget(o.Plan([]Variant{VariantMemory})); b != 11*5*time.Second {
		t.Fatalf("budget without warm-up %v, want 55s", b)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr error
	}{
		{"defaults", Options{}, nil},
		{"all set", Options{Duration: time.Second, Warmup: -1, Conns: []int{1, 4096}, Variants: []Variant{VariantSynced},
			Redis: "redis://127.0.0.1:6379/0", Only: TargetAttenuation, SamplesPerSecond: 10}, nil},
		{"negative duration", Options{Duration: -time.Second}, ErrInvalidOptions},
		{"zero conns", Options{Conns: []int{1, 0}}, ErrInvalidOptions},
		{"too many conns", Options{Conns: []int{5000}}, ErrInvalidOptions},
		{"duplicate conns", Options{Conns: []int{64, 1, 64}}, ErrInvalidOptions},
		{"unknown variant", Options{Variants: []Variant{"etcd"}}, ErrInvalidOptions},
		{"unknown target", Options{Only: "gateway"}, ErrInvalidOptions},
		{"negative samples", Options{SamplesPerSecond: -1}, ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.WithDefaults().Validate()
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Validate = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// WithDefaults is idempotent: "no warm-up" stays no warm-up.
func TestWithDefaultsIdempotent(t *testing.T) {
	o := Options{Warmup: -1}.WithDefaults().WithDefaults()
	if o.warmup() != 0 || o.Duration != DefaultDuration || o.Redis != RedisAuto || len(o.Conns) != 2 {
		t.Fatalf("WithDefaults twice = %+v", o)
	}
}

// TestRounds: the default rounds fit the duration, and rounds that are
// out of range or leave a step too short a slice are refused.
func TestRounds(t *testing.T) {
	tests := []struct {
		name       string
		o          Options
		wantRounds int
		wantErr    error
	}{
		{"default", Options{}, DefaultRounds, nil},
		{"short duration, fewer rounds", Options{Duration: 150 * time.Millisecond}, 3, nil},
		{"shorter than a slice", Options{Duration: 10 * time.Millisecond}, 1, nil},
		{"given", Options{Rounds: 2}, 2, nil},
		{"too many", Options{Rounds: 101}, 101, ErrInvalidOptions},
		{"slices too short", Options{Duration: 100 * time.Millisecond, Rounds: 5}, 5, ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o.WithDefaults()
			if o.Rounds != tt.wantRounds {
				t.Errorf("rounds = %d, want %d", o.Rounds, tt.wantRounds)
			}
			if err := o.Validate(); !errors.Is(err, tt.wantErr) {
				t.Errorf("Validate() = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
