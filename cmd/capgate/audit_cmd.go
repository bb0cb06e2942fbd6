package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/redis/go-redis/v9"
)

// auditSynopsis holds the two forms of audit verify: a file, or a stream.
var auditSynopsis = []string{
	"[--partial] [--verbose]\n[--keys FILE | --jwks FILE|URL...] [--checkpoint-every N] [FILE|-]",
	"--redis URL --stream KEY [--cluster] [--password-env NAME] [--verbose]\n[--keys FILE | --jwks FILE|URL...] [--checkpoint-every N]",
}

const auditAbout = `verify checks an audit trail's hash chains. It reads FILE, or standard
input when FILE is - or absent: the JSON lines the gateway's audit handler
wrote, or an OCSF rendering of them (audit.format: ocsf, or capgate audit
export), whose mapped fields are checked against the canonical event each
record carries; a CEF trail cannot be verified on its own. --partial
accepts chains that start after seq 1, as in a rotated
file. With --redis it reads the audit stream KEY instead; chains trimmed
by MAXLEN are accepted, and events a replica dropped while Redis was
unreachable are reported as declared gaps. --password-env names the
environment variable holding the Redis password. --verbose prints each
chain's range and head hash, to compare with an anchor kept elsewhere.

With --keys (the gateway's key file) or --jwks (its published JWKS, a file
or an http(s) URL; give every JWKS the gateway has used), every checkpoint
signature is checked and a chain may not run more than --checkpoint-every
events (the gateway's audit.checkpoint_every, default 1000) without one,
so a chain rewritten and rehashed without the key is detected. Events
after the last checkpoint are reported: they are not signed yet.

Exit status: 0 chain intact, 1 chain broken or unreadable, 2 usage error.
`

// auditVerifyArgs are the parsed arguments of `audit verify`.
type auditVerifyArgs struct {
	file, redisURL, stream, passwordEnv string
	partial, cluster, verbose           bool
	keyFile                             string
	jwks                                []string
	every                               int
}

// runAuditVerify is `capgate audit verify`: it verifies a file or a
// stream and reports the verdict.
func runAuditVerify(ctx context.Context, args []string, e env) error {
	a, err := parseAuditVerify(args)
	if err != nil {
		return err
	}
	var rep audit.Report
	opts, err := auditKeys(ctx, a)
	if err != nil {
		return err
	}
	if a.redisURL != "" {
		client, cerr := auditRedisClient(a, e.getenv)
		if cerr != nil {
			return usageError{msg: cerr.Error()}
		}
		defer func() { _ = client.Close() }()
		rep, err = audit.VerifyStreamWith(ctx, client, a.stream, opts)
	} else {
		rep, err = verifyAuditFile(a, opts, e.stdin)
	}
	if err != nil {
		var le *audit.LineError
		if errors.As(err, &le) {
			return fmt.Errorf("%w (%s and %s verified before the first broken one)", err,
				plural(rep.Events, "event"), plural(rep.Checkpoints, "checkpoint"))
		}
		return err
	}
	fmt.Fprintln(e.stdout, auditSummary(rep, opts.Keys != nil))
	if opts.Keys != nil {
		reportUnsigned(e.stdout, rep)
	}
	if a.verbose {
		for _, c := range rep.Chains {
			fmt.Fprintf(e.stdout, "chain %q: seq %d..%d, %s, head %s\n", c.Chain, c.First, c.Last, plural(c.Events, "event"), c.Head)
			for _, g := range c.Gaps {
				fmt.Fprintf(e.stdout, "chain %q: declared gap: %s after seq %d missing\n", c.Chain, plural(g.Missing(), "event"), g.After)
			}
		}
	}
	return nil
}

// plural is "1 event", "2 events".
func plural[N ~int | ~int64 | ~uint64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// parseAuditVerify parses flags placed before or after the file.
func parseAuditVerify(args []string) (auditVerifyArgs, error) {
	var a auditVerifyArgs
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.BoolVar(&a.partial, "partial", false, "accept chains that start after seq 1, as in a rotated file")
	fs.BoolVar(&a.verbose, "verbose", false, "print each chain's range and head hash")
	fs.StringVar(&a.redisURL, "redis", "", "read the audit stream from the Redis at `URL` (redis:// or rediss://)")
	fs.StringVar(&a.stream, "stream", "", "the audit stream's `KEY`")
	fs.BoolVar(&a.cluster, "cluster", false, "the URL names a Redis Cluster node")
	fs.StringVar(&a.passwordEnv, "password-env", "", "the environment variable holding the Redis password: its `NAME`")
	fs.StringVar(&a.keyFile, "keys", "", "check checkpoint signatures with the gateway's key `FILE`")
	fs.Func("jwks", "check checkpoint signatures with a JWKS, a `FILE|URL` (repeatable)", func(s string) error {
		a.jwks = append(a.jwks, s)
		return nil
	})
	fs.IntVar(&a.every, "checkpoint-every", 0, "the gateway's audit.checkpoint_every: at most `N` events between checkpoints")
	pos, err := parsePositional(fs, args, 0, 1, "FILE")
	switch {
	case err != nil:
		return a, err
	case a.redisURL == "" && (a.stream != "" || a.cluster || a.passwordEnv != ""):
		return a, usagef("--stream, --cluster and --password-env need --redis")
	case a.redisURL != "" && (a.stream == "" || len(pos) > 0 || a.partial):
		return a, usagef("--redis needs --stream and takes no FILE or --partial")
	case a.keyFile != "" && len(a.jwks) > 0:
		return a, usagef("--keys or --jwks, not both")
	case a.every < 0 || (a.every > 0 && a.keyFile == "" && len(a.jwks) == 0):
		return a, usagef("--checkpoint-every needs --keys or --jwks and a positive count")
	}
	if len(pos) == 1 {
		a.file = pos[0]
	}
	return a, nil
}

// verifyAuditFile verifies a file, or standard input for "" and "-".
func verifyAuditFile(a auditVerifyArgs, opts audit.VerifyOptions, stdin io.Reader) (audit.Report, error) {
	r := stdin
	if a.file != "" && a.file != "-" {
		f, err := os.Open(a.file)
		if err != nil {
			return audit.Report{}, err
		}
		defer func() { _ = f.Close() }()
		r = f
	}
	opts.AllowTrimmedStart = a.partial
	return audit.VerifyWith(r, opts)
}

// auditRedisClient builds a client from the URL and the password
// variable.
func auditRedisClient(a auditVerifyArgs, getenv func(string) string) (redis.UniversalClient, error) {
	password := ""
	if a.passwordEnv != "" {
		if password = getenv(a.passwordEnv); password == "" {
			return nil, fmt.Errorf("environment variable %s is empty", a.passwordEnv)
		}
	}
	if a.cluster {
		o, err := redis.ParseClusterURL(a.redisURL)
		if err != nil {
			return nil, fmt.Errorf("--redis: %w", err)
		}
		if password != "" {
			o.Password = password
		}
		return redis.NewClusterClient(o), nil
	}
	o, err := redis.ParseURL(a.redisURL)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	if password != "" {
		o.Password = password
	}
	return redis.NewClient(o), nil
}

// auditSummary is the one-line verdict for an intact trail.
func auditSummary(rep audit.Report, keys bool) string {
	var notes []string
	if len(rep.Chains) > 1 {
		notes = append(notes, fmt.Sprintf("%d chains", len(rep.Chains)))
	}
	if n := rep.Missing(); n > 0 {
		gaps := 0
		for _, c := range rep.Chains {
			gaps += len(c.Gaps)
		}
		notes = append(notes, fmt.Sprintf("%s missing in %s", plural(n, "event"), plural(gaps, "declared gap")))
	}
	if rep.Duplicates > 0 {
		notes = append(notes, plural(rep.Duplicates, "duplicate")+" skipped")
	}
	s := plural(rep.Events, "event") + ", chain intact"
	if keys {
		s = plural(rep.Events, "event") + ", " + plural(rep.Checkpoints, "checkpoint") + " verified, chain intact"
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}
