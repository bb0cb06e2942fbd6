package loadtest

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Target is what one step drives.
type Target string

// Targets. Issuance and attenuation are driven on capgate.
const (
	// TargetUpstream is the upstream alone: the floor.
	TargetUpstream Target = "upstream"
	// TargetBaseline is a plain, tuned reverse proxy: what the ratios are
	// taken against.
	TargetBaseline Target = "baseline"
	// TargetCapgate is capgate on the full a2a/skill/invoke path.
	TargetCapgate Target = "capgate"
	// TargetMCP is capgate's MCP front on the full tools/call path
	// (authenticate, verify the capability, check revocation, holder,
	// operation and resource argument, rewrite, proxy, map the answer),
	// the upstream standing for the files MCP server.
	TargetMCP Target = "mcp"
	// TargetIssuance is a2a/capabilities/request on capgate, whose
	// resources the agent resolves (a hop to its resolution hook).
	TargetIssuance Target = "issuance"
	// TargetIssuanceCatalog is a2a/capabilities/request on a capgate
	// whose documents agent has its resources in the config's catalog:
	// issuance without the resolution hop.
	TargetIssuanceCatalog Target = "issuance-catalog"
	// TargetAttenuation is a2a/capabilities/attenuate on capgate.
	TargetAttenuation Target = "attenuation"
	// TargetPropagation is the revocation figure: two replicas on one
	// Redis, revoke on one, time until the other refuses. It is not a
	// load step: it runs after the steps.
	TargetPropagation Target = "propagation"
	// TargetHeap is the heap per live capability: many issued from the
	// catalog agent, the heap measured before and after. It runs after
	// the steps.
	TargetHeap Target = "heap"
)

// Targets lists every target in report order.
func Targets() []Target {
	return []Target{TargetUpstream, TargetBaseline, TargetCapgate, TargetMCP, TargetIssuance, TargetIssuanceCatalog, TargetAttenuation,
		TargetPropagation, TargetHeap}
}

// Variant is the revocation store capgate runs with.
type Variant string

// Variants.
const (
	// VariantMemory is the embedded in-memory store.
	VariantMemory Variant = "memory"
	// VariantRedis is revocation.Redis: one Redis round trip per check.
	VariantRedis Variant = "redis"
	// VariantSynced is revocation.Synced: the pub/sub-synced local set.
	VariantSynced Variant = "synced"
)

// Variants lists every variant in report order.
func Variants() []Variant { return []Variant{VariantMemory, VariantRedis, VariantSynced} }

func (v Variant) needsRedis() bool { return v == VariantRedis || v == VariantSynced }

// Default option values: the default plan of 17 runs takes 102 s of load
// plus a few seconds of setup, within the two minutes the README promises.
const (
	DefaultDuration = 5 * time.Second
	DefaultWarmup   = time.Second
	// RedisAuto starts a throwaway redis-server when one is on PATH.
	RedisAuto = "auto"
	// RedisOff skips the Redis variants.
	RedisOff = "off"
	// DefaultPropagationTrials and DefaultHeapCapabilities size the two
	// figures measured after the load steps.
	DefaultPropagationTrials = 200
	DefaultHeapCapabilities  = 20_000
)

// DefaultConns are the default connection counts.
func DefaultConns() []int { return []int{1, 64} }

// Options configures Run.
type Options struct {
	// Duration is each step's measured time; zero means DefaultDuration.
	Duration time.Duration
	// Warmup precedes each step and is discarded; zero means
	// DefaultWarmup, negative means none.
	Warmup time.Duration
	// Conns are the connection counts of the invoke steps; nil means
	// DefaultConns. Issuance and attenuation use the largest.
	Conns []int
	// Variants are capgate's revocation stores; nil means Variants().
	Variants []Variant
	// Redis is RedisAuto (also when empty), RedisOff, or a redis:// URL.
	// A URL that cannot be reached is an error; RedisAuto without a
	// redis-server on PATH skips the Redis variants with a note.
	Redis string
	// Only, when set, keeps the steps of that one target (for profiling).
	Only Target
	// SamplesPerSecond sizes the latency buffers (see Spec).
	SamplesPerSecond int
	// PropagationTrials is how many revocations the propagation figure
	// times; zero means DefaultPropagationTrials.
	PropagationTrials int
	// HeapCapabilities is how many capabilities the heap figure issues;
	// zero means DefaultHeapCapabilities.
	HeapCapabilities int
	// Rounds is how many interleaved rounds the steps run in (see
	// DefaultRounds); each step gets Duration/Rounds and
	// Warmup/Rounds per round. Zero means DefaultRounds, or fewer when
	// Duration is too short to give each round minSlice.
	Rounds int
	// World sizes the upstream's answers and the documents agent's
	// catalog; the zero World is the quickstart's.
	World World
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress receives the plan, a line per round and one line per
	// step once its last round ends; nil discards them.
	Progress io.Writer
}

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Warmup == 0 {
		o.Warmup = DefaultWarmup
	}
	if len(o.Conns) == 0 {
		o.Conns = DefaultConns()
	}
	if len(o.Variants) == 0 {
		o.Variants = Variants()
	}
	if o.Redis == "" {
		o.Redis = RedisAuto
	}
	if o.PropagationTrials == 0 {
		o.PropagationTrials = DefaultPropagationTrials
	}
	if o.HeapCapabilities == 0 {
		o.HeapCapabilities = DefaultHeapCapabilities
	}
	if o.Rounds == 0 {
		o.Rounds = int(min(max(o.Duration/minSlice, 1), DefaultRounds))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// Validate reports every problem with o (after WithDefaults).
func (o Options) Validate() error {
	var problems []string
	if o.Duration < 0 {
		problems = append(problems, fmt.Sprintf("duration %v is negative", o.Duration))
	}
	for i, c := range o.Conns {
		if c < 1 || c > 4096 {
			problems = append(problems, fmt.Sprintf("connection count %d is outside 1..4096", c))
		}
		if slices.Contains(o.Conns[:i], c) {
			problems = append(problems, fmt.Sprintf("connection count %d is listed twice", c))
		}
	}
	for _, v := range o.Variants {
		if !slices.Contains(Variants(), v) {
			problems = append(problems, fmt.Sprintf("unknown variant %q (want memory, redis or synced)", v))
		}
	}
	if o.Only != "" && !slices.Contains(Targets(), o.Only) {
		problems = append(problems, fmt.Sprintf("unknown target %q", o.Only))
	}
	if o.PropagationTrials < 0 || o.HeapCapabilities < 0 {
		problems = append(problems, "propagation trials and heap capabilities must not be negative")
	}
	if o.SamplesPerSecond < 0 {
		problems = append(problems, "samples per second is negative")
	}
	if o.Rounds < 1 || o.Rounds > 100 {
		problems = append(problems, fmt.Sprintf("rounds %d is outside 1..100", o.Rounds))
	} else if o.Rounds > 1 && o.Duration/time.Duration(o.Rounds) < minSlice {
		problems = append(problems, fmt.Sprintf("duration %v in %d rounds gives each step less than %v per round", o.Duration, o.Rounds, minSlice))
	}
	problems = append(problems, o.World.validate()...)
	if len(problems) > 0 {
		return fmt.Errorf("%w: %v", ErrInvalidOptions, problems)
	}
	return nil
}

// Step is one measured run of the plan.
type Step struct {
	Target  Target
	Variant Variant // empty for the upstream and the baseline
	Conns   int
}

// Plan lists the steps of o over the variants that can run, in the order
// they run: per connection count the upstream, the baseline, capgate in
// each variant and the MCP front on the first variant (so each ratio
// compares runs made close in time), then
// issuance on the first variant (issuance never consults the revocation
// store, so it would be the same on every variant), issuance from the
// catalog (in memory), and attenuation on each variant, at the largest
// connection count.
func (o Options) Plan(variants []Variant) []Step {
	var steps []Step
	for _, c := range o.Conns {
		steps = append(steps, Step{Target: TargetUpstream, Conns: c}, Step{Target: TargetBaseline, Conns: c})
		for _, v := range variants {
			steps = append(steps, Step{Target: TargetCapgate, Variant: v, Conns: c})
		}
		if len(variants) > 0 {
			steps = append(steps, Step{Target: TargetMCP, Variant: variants[0], Conns: c})
		}
	}
	if len(variants) > 0 {
		top := slices.Max(o.Conns)
		steps = append(steps, Step{Target: TargetIssuance, Variant: variants[0], Conns: top},
			Step{Target: TargetIssuanceCatalog, Variant: VariantMemory, Conns: top})
		for _, v := range variants {
			steps = append(steps, Step{Target: TargetAttenuation, Variant: v, Conns: top})
		}
	}
	if o.Only != "" {
		steps = slices.DeleteFunc(steps, func(s Step) bool { return s.Target != o.Only })
	}
	return steps
}

// runs reports whether the figure or step target t is measured.
func (o Options) runs(t Target) bool { return o.Only == "" || o.Only == t }

// Budget is the load time of steps: each step's warm-up and duration.
// Setup (starting servers, issuing the capabilities) comes on top.
func (o Options) Budget(steps []Step) time.Duration {
	return time.Duration(len(steps)) * (o.warmup() + o.Duration)
}

// warmup is the effective warm-up: a negative Warmup means none.
func (o Options) warmup() time.Duration { return max(o.Warmup, 0) }
