package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// policyDefaultConfig is the gateway config whose catalog (agents, grants,
// skills, A2E hosts) a policy is checked against by default.
const policyDefaultConfig = "deploy/examples/quickstart/capgate.yaml"

const policyUsage = `usage:
  capgate policy check FILE [--strict] [--config PATH]
  capgate policy test FILE TESTS [--config PATH]
  capgate policy explain FILE --principal ID [--group G]... [--issuer I] [--claim k=v]...
        (--agent A --grant G [--grant G]... [--op O]... [--collection C] [--filter k=v]...
         [--purpose P] [--expires RFC3339|DURATION]
        | --host H --a2e CAP[,CAP...]) [--now RFC3339] [--config PATH]

--config names the gateway config whose agents, grants, skills and A2E hosts
the policy is validated against (default ` + policyDefaultConfig + `).
Exit status: 0 success, 1 policy problems or failed tests, 2 usage error.
`

// errPolicyUsage marks command-line mistakes (exit status 2).
var errPolicyUsage = errors.New("usage error")

// runPolicy implements `capgate policy check|test|explain`. args are the
// arguments after "policy". loadCatalog turns a gateway config path into
// the catalog a policy is validated against.
func runPolicy(ctx context.Context, args []string, stdout, stderr io.Writer,
	loadCatalog func(configPath string) (policy.Catalog, error)) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, policyUsage)
		return 2
	}
	var err error
	switch args[0] {
	case "check":
		err = policyCheck(ctx, args[1:], stdout, stderr, loadCatalog)
	case "test":
		err = policyTest(ctx, args[1:], stdout, stderr, loadCatalog)
	case "explain":
		err = policyExplain(ctx, args[1:], stdout, stderr, loadCatalog)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, policyUsage)
		return 0
	default:
		err = fmt.Errorf("%w: unknown policy command %q", errPolicyUsage, args[0])
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errPolicyUsage):
		fmt.Fprintf(stderr, "capgate policy: %v\n\n%s", err, policyUsage)
		return 2
	default:
		fmt.Fprintf(stderr, "capgate policy: %v\n", err)
		return 1
	}
}

// policyFlags parses flags that may come before, between or after the
// positional arguments, and checks the positional count.
func policyFlags(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %w", errPolicyUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != positional {
		return nil, fmt.Errorf("%w: %s wants %d file argument(s), got %d", errPolicyUsage, fs.Name(), positional, len(pos))
	}
	return pos, nil
}

// policyLoad reads and loads a policy file, printing every problem to
// stderr. A policy with errors is returned as an error (exit status 1).
func policyLoad(ctx context.Context, path, config string, stderr io.Writer,
	loadCatalog func(string) (policy.Catalog, error)) (*policy.Policy, []policy.Problem, error) {
	cat, err := loadCatalog(config)
	if err != nil {
		return nil, nil, fmt.Errorf("loading the catalog from %s: %w", config, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	p, problems, err := policy.Load(ctx, data, path, cat)
	for _, pr := range problems {
		fmt.Fprintln(stderr, pr.Error())
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

func policyCheck(ctx context.Context, args []string, stdout, stderr io.Writer, loadCatalog func(string) (policy.Catalog, error)) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	config := fs.String("config", policyDefaultConfig, "gateway config")
	strict := fs.Bool("strict", false, "treat warnings as errors")
	pos, err := policyFlags(fs, args, 1)
	if err != nil {
		return err
	}
	p, problems, err := policyLoad(ctx, pos[0], *config, stderr, loadCatalog)
	if err != nil {
		return err
	}
	if *strict && len(problems) > 0 {
		return fmt.Errorf("%s: %d warning(s) with --strict", pos[0], len(problems))
	}
	fmt.Fprintf(stdout, "%s: OK, revision %s, %d rule(s), %d warning(s)\n", pos[0], p.Revision(), len(p.Rules()), len(problems))
	return nil
}

func policyTest(ctx context.Context, args []string, stdout, stderr io.Writer, loadCatalog func(string) (policy.Catalog, error)) error {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	config := fs.String("config", policyDefaultConfig, "gateway config")
	pos, err := policyFlags(fs, args, 2)
	if err != nil {
		return err
	}
	p, _, err := policyLoad(ctx, pos[0], *config, stderr, loadCatalog)
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
			fmt.Fprintf(stdout, "ok   %s\n", r.Case.Name)
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL %s: %s\n", r.Case.Pos, r.Case.Name)
		for _, f := range r.Failures {
			fmt.Fprintf(stdout, "       %s\n", f)
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed (policy revision %s)\n", len(suite.Cases)-failed, failed, p.Revision())
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
	fs.StringVar(&f.config, "config", policyDefaultConfig, "gateway config")
	fs.StringVar(&f.principal, "principal", "", "principal id")
	fs.StringVar(&f.issuer, "issuer", "", "principal issuer")
	fs.Var(&f.groups, "group", "principal group (repeatable)")
	fs.Var(&f.claims, "claim", "principal claim k=v (repeatable)")
	fs.StringVar(&f.agent, "agent", "", "agent")
	fs.Var(&f.grants, "grant", "requested grant (repeatable)")
	fs.Var(&f.ops, "op", "requested operation (repeatable)")
	fs.StringVar(&f.collection, "collection", "", "resource collection")
	fs.Var(&f.filters, "filter", "resource filter k=v (repeatable)")
	fs.StringVar(&f.purpose, "purpose", "", "purpose")
	fs.StringVar(&f.expires, "expires", "", "requested expiry: RFC 3339 or a duration from now")
	fs.StringVar(&f.host, "host", "", "A2E host")
	fs.StringVar(&f.a2e, "a2e", "", "A2E capabilities, comma-separated")
	fs.StringVar(&f.now, "now", "", "decision time, RFC 3339 (default: the current time)")
}

func policyExplain(ctx context.Context, args []string, stdout, stderr io.Writer, loadCatalog func(string) (policy.Catalog, error)) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	var f policyExplainFlags
	f.register(fs)
	pos, err := policyFlags(fs, args, 1)
	if err != nil {
		return err
	}
	who, now, err := f.principalAndTime()
	if err != nil {
		return err
	}
	if f.host == "" && (f.agent == "" || len(f.grants) == 0) {
		return fmt.Errorf("%w: explain needs --agent and --grant, or --host and --a2e", errPolicyUsage)
	}
	in, err := f.input(who, now)
	if err != nil {
		return err
	}
	p, _, err := policyLoad(ctx, pos[0], f.config, stderr, loadCatalog)
	if err != nil {
		return err
	}
	if f.host != "" {
		fmt.Fprint(stdout, p.ExplainA2E(ctx, policy.A2EInput{Principal: who, Host: f.host,
			Capabilities: policySplit(f.a2e), Now: now}))
		return nil
	}
	fmt.Fprint(stdout, p.Explain(ctx, in))
	return nil
}

// principalAndTime builds the principal and the decision time.
func (f *policyExplainFlags) principalAndTime() (policy.Principal, time.Time, error) {
	if f.principal == "" {
		return policy.Principal{}, time.Time{}, fmt.Errorf("%w: --principal is required", errPolicyUsage)
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
	now := time.Now()
	if f.now != "" {
		if now, err = time.Parse(time.RFC3339, f.now); err != nil {
			return who, now, fmt.Errorf("%w: --now: %w", errPolicyUsage, err)
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
			return in, fmt.Errorf("%w: --expires %q is neither RFC 3339 nor a duration", errPolicyUsage, f.expires)
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
			return nil, fmt.Errorf("%w: %s %q is not key=value", errPolicyUsage, name, kv)
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
