package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/cmd/capgate/internal/loadtest"
)

// benchSynopsis is the form of bench.
var benchSynopsis = []string{`[--duration 5s] [--warmup 1s] [--conns 1,64] [--variants memory,redis,synced]
[--redis auto|off|URL]
[--only upstream|baseline|capgate|issuance|issuance-catalog|attenuation|propagation|heap]
[--propagation-trials 200] [--heap-capabilities 20000]
[--answer-kib N] [--ids-per-kib N] [--catalog N] [--scale]
[--rounds 5] [--quick] [--json] [--check] [--cpuprofile FILE]`}

// benchUsage is what bench does, in its usage.
const benchUsage = `bench measures what capgate costs beyond the proxy hop. In one process, on
loopback only, it starts a minimal upstream (the documents agent's stand-in),
a plain tuned httputil.ReverseProxy in front of it (the baseline), and capgate
on the full a2a/skill/invoke path, once per revocation store: memory, redis
(revocation.Redis) and synced (the pub/sub-synced local set), and the MCP
front on the full tools/call path (read_file at /mcp/files, on the first
store; the upstream stands for the files server, and the capability is
issued at /mcp/files). It drives each
with --conns keep-alive connections in a closed loop for --duration after a
discarded --warmup, then drives issuance (a2a/capabilities/request, with the
hop to the agent's resolution hook, and from a catalog in the config) and
attenuation (a2a/capabilities/attenuate) at the largest connection count. It
prints the plan and its time budget first (on standard error), then a table
with req/s, p50/p99/p99.9, allocations per request and the ratio to the
baseline from the same run (on standard output; --json for machine reading).
The runs are split into --rounds interleaved rounds: each round gives every
run its share of --duration and --warmup, in plan order, and a row sums its
run's slices, so that the drift of a shared machine's speed moves the
baseline and capgate together instead of their ratio. The invoke runs take
their rounds first, then issuance and attenuation (which leave capabilities
live in the gateway) theirs. Each slice opens its connections again: read
p99.9 from a --rounds 1 run.
The default run takes about 105 s: 102 s of load, plus a few seconds starting the
servers and measuring the two figures below.

After the load steps it measures two figures. propagation starts two
replicas of one gateway on one Redis (synced store), revokes
--propagation-trials capabilities on replica A while 8 callers keep
replica B busy, and from the moment each revoke call returns invokes the
capability on B until B refuses: it reports the time from the revoke call
to B's first refusal (p50, p99) and the late allows, calls on B started
after the revoke returned that B still allowed. heap issues
--heap-capabilities capabilities from the catalog agent and reports the
live heap they hold, per capability. propagation needs Redis, like the
redis and synced variants.

--redis auto (the default) starts a throwaway redis-server if one is on PATH,
and skips the Redis variants with a note otherwise. --quick shortens the
run (300ms measured, 100ms warm-up unless given) for smoke tests. --only
keeps one target's runs, and --cpuprofile writes a pprof CPU profile of the
whole run, for profiling.

--answer-kib, --ids-per-kib and --catalog size the world: the upstream
answers every invocation with a text of N KiB naming N ids of the
capability per KiB (12.8 is one per 80 bytes), and the documents agent of
every capgate has a catalog of N resources (the two the capability covers,
the others in another collection) instead of its resolution hook.

--scale runs the fixed scale matrix instead of the plan above, each case
on its own upstream, baseline and capgate (in-memory store), in the same
interleaved rounds: answers of 1, 16 and 256 KiB with and without ids (one
per 80 bytes; catalog of 2), catalogs of 2, 1,000 and 10,000 (4 KiB
answer), issuance from catalogs of 2 and 10,000, all at 8 connections,
and the small-call path at 64. Each row's ratio is to the baseline with
the same answer in the same run (issuance: to issuance from a catalog of
2). Its targets (--check): catalog 10,000 ≥ 0.9× catalog 2 (each over
its own baseline, run beside it); 256 KiB
≥ 0.6× the baseline, ≥ 0.5× with ids; 16 KiB ≥ 0.7×; issuance from
10,000 ≥ 0.8× issuance from 2; the small call ≥ 0.7× at 64 connections.
--duration, --warmup, --rounds, --quick, --json, --check and --cpuprofile
apply; the other flags do not.

The default plan's targets (--check) are ratios to the baseline in the
same run: capgate ≥ 0.7× the baseline's req/s at 64 connections; its
p50 at 1 connection ≤ 2× the baseline's; issuance from a
catalog-configured agent ≥ 0.5× the baseline's req/s at 64 connections;
and the two figures: a revocation refused on another replica within 50
ms at p99 with no late allow, ≤ 1024 B of heap per live capability.

--check makes a missed target (any check of the report that does not
pass) an error, so that a change that loses ground shows at once. Timings
depend on the machine: use it on a quiet one, never in CI.

Exit status: 0 measured without errors (and, with --check, every target
met), 1 failed requests, a run that could not happen or, with --check, a
missed target, 2 usage error.
`

// Quick-run defaults, for smoke tests.
const (
	quickDuration = 300 * time.Millisecond
	quickWarmup   = 100 * time.Millisecond
	// The figures after the steps, shortened.
	quickPropagationTrials = 10
	quickHeapCapabilities  = 1000
)

// benchArgs are the parsed arguments of `capgate bench`.
type benchArgs struct {
	opts       loadtest.Options
	json       bool
	check      bool
	scale      bool
	cpuprofile string
}

// benchReport is what bench prints and checks: a plan's report or the
// scale matrix's.
type benchReport interface {
	WriteTable(w io.Writer) error
	WriteJSON(w io.Writer) error
	Problems() []string
}

// runBench implements `capgate bench`; every setting is a flag.
func runBench(ctx context.Context, args []string, e env) error {
	a, err := parseBench(args)
	if err != nil {
		return err
	}
	if a.cpuprofile != "" {
		stop, err := startCPUProfile(a.cpuprofile)
		if err != nil {
			return err
		}
		defer stop()
	}
	a.opts.Progress = e.stderr
	var rep benchReport
	var checks []loadtest.Check
	if a.scale {
		r, err := loadtest.RunScale(ctx, a.opts)
		if err != nil {
			return err
		}
		rep, checks = r, r.Checks
	} else {
		r, err := loadtest.Run(ctx, a.opts)
		if err != nil {
			return err
		}
		rep, checks = r, r.Checks
	}
	if a.json {
		err = rep.WriteJSON(e.stdout)
	} else {
		err = rep.WriteTable(e.stdout)
	}
	if err != nil {
		return err
	}
	if bad := rep.Problems(); len(bad) > 0 {
		return fmt.Errorf("%d problem(s): the measurement is not valid; see the table", len(bad))
	}
	if a.check {
		return missedTargets(checks)
	}
	return nil
}

// missedTargets returns an error naming every check that did not pass,
// or nil when all passed.
func missedTargets(checks []loadtest.Check) error {
	var missed []string
	for _, c := range checks {
		if !c.Pass {
			missed = append(missed, fmt.Sprintf("%s (%s): %s", c.Name, c.Variant, c.Value))
		}
	}
	if len(missed) == 0 {
		return nil
	}
	return fmt.Errorf("%d target(s) missed: %s", len(missed), strings.Join(missed, "; "))
}

func parseBench(args []string) (benchArgs, error) {
	var a benchArgs
	var conns, variants, only string
	var quick bool
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.DurationVar(&a.opts.Duration, "duration", loadtest.DefaultDuration, "measured `DURATION` of each run")
	fs.DurationVar(&a.opts.Warmup, "warmup", loadtest.DefaultWarmup, "discarded warm-up `DURATION` before each run (0: none)")
	fs.StringVar(&conns, "conns", "1,64", "comma-separated connection `COUNTS`")
	fs.StringVar(&variants, "variants", "memory,redis,synced", "comma-separated capgate revocation `STORES`")
	fs.StringVar(&a.opts.Redis, "redis", loadtest.RedisAuto, "auto, off, or a redis:// `URL`")
	fs.StringVar(&only, "only", "", "keep one `TARGET`'s runs")
	fs.IntVar(&a.opts.PropagationTrials, "propagation-trials", loadtest.DefaultPropagationTrials, "the `N` revocations the propagation figure times")
	fs.IntVar(&a.opts.HeapCapabilities, "heap-capabilities", loadtest.DefaultHeapCapabilities, "the `N` capabilities the heap figure issues")
	fs.IntVar(&a.opts.Rounds, "rounds", 0, "the `N` interleaved rounds the runs are split into (0: 5, fewer for a short --duration)")
	fs.BoolVar(&quick, "quick", false, "a short run, for smoke tests")
	fs.BoolVar(&a.json, "json", false, "print JSON instead of the table")
	fs.BoolVar(&a.check, "check", false, "fail when a target is missed")
	fs.StringVar(&a.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
	fs.IntVar(&a.opts.World.AnswerKiB, "answer-kib", 0, "the upstream answers each invocation with `N` KiB of text (0: ~100 B)")
	fs.Float64Var(&a.opts.World.IDsPerKiB, "ids-per-kib", 0, "`N` of the capability's ids per KiB of that text (12.8: one per 80 bytes)")
	fs.IntVar(&a.opts.World.Catalog, "catalog", 0, "the documents agent's catalog holds `N` resources (0: its resolution hook)")
	fs.BoolVar(&a.scale, "scale", false, "run the fixed scale matrix")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return a, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	applyQuick(&a.opts, quick, set)
	var err error
	if a.opts.Conns, err = parseConns(conns); err != nil {
		return a, err
	}
	a.opts.Variants = parseVariants(variants)
	a.opts.Only = loadtest.Target(only)
	if a.opts.PropagationTrials < 1 || a.opts.HeapCapabilities < 1 {
		return a, usagef("--propagation-trials and --heap-capabilities must be positive")
	}
	if a.opts.Duration <= 0 {
		return a, usagef("--duration %v must be positive", a.opts.Duration)
	}
	if a.opts.Warmup == 0 {
		a.opts.Warmup = -1 // none, not the default
	}
	if err := a.opts.WithDefaults().Validate(); err != nil {
		return a, usageError{msg: err.Error()}
	}
	return a, nil
}

// applyQuick shortens the run unless the duration or warm-up were given.
func applyQuick(o *loadtest.Options, quick bool, set map[string]bool) {
	if !quick {
		return
	}
	if !set["duration"] {
		o.Duration = quickDuration
	}
	if !set["warmup"] {
		o.Warmup = quickWarmup
	}
	if !set["propagation-trials"] {
		o.PropagationTrials = quickPropagationTrials
	}
	if !set["heap-capabilities"] {
		o.HeapCapabilities = quickHeapCapabilities
	}
}

func parseConns(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, usagef("--conns %q: want comma-separated positive integers", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseVariants(s string) []loadtest.Variant {
	var out []loadtest.Variant
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, loadtest.Variant(f))
		}
	}
	return out
}

// startCPUProfile profiles the whole process until the returned stop.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
