package main

import (
	"context"

	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// policyConfigName is the gateway config looked for beside the policy file
// when --config is not given.
const policyConfigName = "capgate.yaml"

// policyConfigAbout says what --config names, for every policy command.
const policyConfigAbout = `--config names the gateway config whose agents, grants, skills and A2E hosts
the policy is validated against (default: ` + policyConfigName + ` in the policy
file's directory).
`

const policyCheckAbout = `Loads the grant policy FILE and prints every problem in it at once, with
its line and column; with --strict a warning is a problem too.

` + policyConfigAbout + `
Exit status: 0 the policy loads, 1 policy problems, 2 usage error.
`

const policyTestAbout = `Loads the grant policy FILE and runs the table of cases in TESTS against
it: each case is a request and the decision it must get.

` + policyConfigAbout + `
Exit status: 0 every case passed, 1 policy problems or failed cases, 2 usage error.
`

const policyExplainAbout = `Explains, rule by rule, how the grant policy FILE decides one request: a
capability request (--agent, --grant...) or an A2E handshake (--host,
--a2e), by the principal given with --principal and its --group, --issuer
and --claim.

` + policyConfigAbout + `
Exit status: 0 explained, 1 policy problems, 2 usage error.
`

// policyExplainSynopsis is the form of policy explain.
var policyExplainSynopsis = []string{`FILE --principal ID [--group G]... [--issuer I]
[--claim k=v]...
(--agent A --grant G [--grant G]... [--op O]...
 [--collection C] [--filter k=v]... [--purpose P]
 [--expires RFC3339|DURATION]
| --host H --a2e CAP[,CAP...])
[--now RFC3339] [--config PATH]`}

// policyConfig is the gateway config to validate the policy at path
// against: the --config flag, or capgate.yaml beside the policy.
func policyConfig(flagValue, path string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	beside := filepath.Join(filepath.Dir(path), policyConfigName)
	if _, err := os.Stat(beside); err != nil {
		return "", usagef("no gateway config to check %s against: %s does not exist; pass --config PATH "+
			"(the capgate.yaml whose agents, grants and hosts the policy names)", path, beside)
	}
	return beside, nil
}

// policyLoad reads and loads a policy file, printing every problem to
// stderr. A policy with errors is returned as an error (exit status 1).
func policyLoad(ctx context.Context, path, configFlag string, e env) (*policy.Policy, []policy.Problem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	config, err := policyConfig(configFlag, path)
	if err != nil {
		return nil, nil, err
	}
	cat, err := e.loadCatalog(config)
	if err != nil {
		return nil, nil, fmt.Errorf("loading the catalog from %s: %w", config, err)
	}
	p, problems, err := policy.Load(ctx, data, path, cat)
	for _, pr := range problems {
		fmt.Fprintln(e.stderr, pr.Error())
	}
	if err != nil {
		errs := 0
		for _, pr := range problems {
			if !pr.Warning {
				errs++
			}
		}
		return nil, problems, fmt.Errorf("%s: %d problem(s); the policy is refused", path, errs)
	}
	return p, problems, nil
}

func policyCheck(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	config := fs.String("config", "", "the gateway config at `PATH` the policy is checked against")
	strict := fs.Bool("strict", false, "a warning is a problem too")
	pos, err := parsePositional(fs, args, 1, 1, "FILE")
	if err != nil {
		return err
	}
	p, problems, err := policyLoad(ctx, pos[0], *config, e)
	if err != nil {
		return err
	}
	if *strict && len(problems) > 0 {
		return fmt.Errorf("%s: %d warning(s) with --strict", pos[0], len(problems))
	}
	fmt.Fprintf(e.stdout, "%s: OK, revision %s, %d rule(s), %d warning(s)\n", pos[0], p.Revision(), len(p.Rules()), len(problems))
	return nil
}

func policyTest(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	config := fs.String("config", "", "the gateway config at `PATH` the policy is checked against")
	pos, err := parsePositional(fs, args, 2, 2, "FILE and TESTS")
	if err != nil {
		return err
	}
	p, _, err := policyLoad(ctx, pos[0], *config, e)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(pos[1])
	if err != nil {
		return err
	}
	suite, err := policytest.Parse(data, pos[1])
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range suite.Run(ctx, p) {
		if r.Passed() {
			fmt.Fprintf(e.stdout, "ok   %s\n", r.Case.Name)
			continue
		}
		failed++
		fmt.Fprintf(e.stdout, "FAIL %s: %s\n", r.Case.Pos, r.Case.Name)
		for _, f := range r.Failures {
			fmt.Fprintf(e.stdout, "       %s\n", f)
		}
	}
	fmt.Fprintf(e.stdout, "%d passed, %d failed (policy revision %s)\n", len(suite.Cases)-failed, failed, p.Revision())
	if failed > 0 {
		return fmt.Errorf("%d of %d case(s) failed", failed, len(suite.Cases))
	}
	return nil
}

// policyList is a repeatable string flag.
type policyList []string

func (l *policyList) String() string     { return strings.Join(*l, ",") }
func (l *policyList) Set(v string) error { *l = append(*l, v); return nil }

// policyExplainFlags holds the request described on the command line.
type policyExplainFlags struct {
	config, principal, issuer, agent, collection, purpose, expires, host, a2e, now string
	groups, claims, grants, ops, filters                                           policyList
}

func (f *policyExplainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "the gateway config at `PATH` the policy is checked against")
	fs.StringVar(&f.principal, "principal", "", "the principal's `ID`")
	fs.StringVar(&f.issuer, "issuer", "", "the principal's `ISSUER`")
	fs.Var(&f.groups, "group", "a `GROUP` of the principal (repeatable)")
	fs.Var(&f.claims, "claim", "a claim of the principal, `k=v` (repeatable)")
	fs.StringVar(&f.agent, "agent", "", "the `AGENT` asked")
	fs.Var(&f.grants, "grant", "a `GRANT` asked for (repeatable)")
	fs.Var(&f.ops, "op", "an `OPERATION` asked for (repeatable)")
	fs.StringVar(&f.collection, "collection", "", "the resource `COLLECTION`")
	fs.Var(&f.filters, "filter", "a resource filter, `k=v` (repeatable)")
	fs.StringVar(&f.purpose, "purpose", "", "the request's `PURPOSE`")
	fs.StringVar(&f.expires, "expires", "", "the expiry asked for: an RFC 3339 `TIME` or a duration from now")
	fs.StringVar(&f.host, "host", "", "the A2E `HOST` of a handshake")
	fs.StringVar(&f.a2e, "a2e", "", "the A2E `CAPABILITIES` asked for, comma-separated")
	fs.StringVar(&f.now, "now", "", "the decision `TIME`, RFC 3339 (default: the current time)")
}

func policyExplain(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	var f policyExplainFlags
	f.register(fs)
	pos, err := parsePositional(fs, args, 1, 1, "FILE")
	if err != nil {
		return err
	}
	who, now, err := f.principalAndTime(e.now)
	if err != nil {
		return err
	}
	if f.host == "" && (f.agent == "" || len(f.grants) == 0) {
		return usagef("explain needs --agent and --grant, or --host and --a2e")
	}
	in, err := f.input(who, now)
	if err != nil {
		return err
	}
	p, _, err := policyLoad(ctx, pos[0], f.config, e)
	if err != nil {
		return err
	}
	if f.host != "" {
		fmt.Fprint(e.stdout, p.ExplainA2E(ctx, policy.A2EInput{Principal: who, Host: f.host,
			Capabilities: policySplit(f.a2e), Now: now}))
		return nil
	}
	fmt.Fprint(e.stdout, p.Explain(ctx, in))
	return nil
}

// principalAndTime builds the principal and the decision time.
func (f *policyExplainFlags) principalAndTime(clock func() time.Time) (policy.Principal, time.Time, error) {
	if f.principal == "" {
		return policy.Principal{}, time.Time{}, usagef("--principal is required")
	}
	who := policy.Principal{ID: f.principal, Issuer: f.issuer, Groups: f.groups}
	claims, err := policyKeyValues("--claim", f.claims)
	if err != nil {
		return who, time.Time{}, err
	}
	if len(claims) > 0 {
		who.Claims = make(map[string]any, len(claims))
		for k, v := range claims {
			who.Claims[k] = v
		}
	}
	now := clock()
	if f.now != "" {
		if now, err = time.Parse(time.RFC3339, f.now); err != nil {
			return who, now, usagef("--now: %v", err)
		}
	}
	return who, now, nil
}

// input builds the capability request.
func (f *policyExplainFlags) input(who policy.Principal, now time.Time) (policy.Input, error) {
	in := policy.Input{Principal: who, Agent: f.agent, Grants: f.grants, Operations: f.ops, Purpose: f.purpose, Now: now}
	filter, err := policyKeyValues("--filter", f.filters)
	if err != nil {
		return in, err
	}
	if f.collection != "" || len(filter) > 0 {
		in.Resource = &policy.ResourceQuery{Collection: f.collection, Filter: filter}
	}
	if f.expires != "" {
		if t, err := time.Parse(time.RFC3339, f.expires); err == nil {
			in.Expires = t
		} else if d, err := time.ParseDuration(f.expires); err == nil {
			in.Expires = now.Add(d)
		} else {
			return in, usagef("--expires %q is neither RFC 3339 nor a duration", f.expires)
		}
	}
	return in, nil
}

// policyKeyValues parses k=v flag values.
func policyKeyValues(name string, vals []string) (map[string]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(vals))
	for _, kv := range vals {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q is not key=value", name, kv)
		}
		out[k] = v
	}
	return out, nil
}

// policySplit splits a comma-separated flag value, dropping empty entries.
func policySplit(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
