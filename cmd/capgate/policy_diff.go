package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/impact"
	"github.com/capgate/capgate/policy/policytest"
)

// policyDiffWidens is the exit status of `policy diff` when the new
// policy allows something the old one does not.
const policyDiffWidens = 3

const policyDiffAbout = `Decides a universe of requests under the grant policies OLD and NEW and
reports every decision that differs, grouped by the rule that caused it:
what widens (denied -> issued, or more operations, resources, lifetime or
delegation depth, or no more approval; an A2E capability or ambient call
refused -> allowed) and what narrows.

The universe is built from what is known: the agents, grants, skills and
A2E hosts of the gateway config; the principals, groups, issuers, claims,
collections and filters both policies name; with --tests, the principals
and requests of policy test tables; with --audit, every principal and
capability request in an audit trail. CEL conditions are decided on the
universe's values; the report names every condition it did not decide
both true and false, where a difference may hide.

--json writes the report as JSON for CI.

` + policyConfigAbout + `
Exit status: 0 nothing widens, 3 something widens (a change that needs a
security review), 1 policy problems or unreadable input, 2 usage error.
`

// policyDiffSynopsis is the form of policy diff.
var policyDiffSynopsis = []string{"OLD NEW [--config PATH] [--tests FILE]... [--audit FILE]\n[--now RFC3339] [--json]"}

func policyDiff(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	config := fs.String("config", "", "the gateway config at `PATH` both policies are checked against")
	var tests policyList
	fs.Var(&tests, "tests", "a policy test table `FILE` whose principals and requests join the universe (repeatable)")
	trail := fs.String("audit", "", "an audit trail `FILE` whose principals and requests join the universe")
	nowFlag := fs.String("now", "", "the decision `TIME` of the universe's requests, RFC 3339 (default: the current time)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	pos, err := parsePositional(fs, args, 2, 2, "OLD and NEW")
	if err != nil {
		return err
	}
	now := e.now()
	if *nowFlag != "" {
		if now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			return usagef("--now: %v", err)
		}
	}
	old, _, err := policyLoad(ctx, pos[0], *config, e)
	if err != nil {
		return err
	}
	cand, _, err := policyLoad(ctx, pos[1], *config, e)
	if err != nil {
		return err
	}
	src := impact.Sources{Catalog: cand.Catalog(), Vocabulary: old.Vocabulary().Merge(cand.Vocabulary()), Now: now}
	if err := addTestSources(&src, tests); err != nil {
		return err
	}
	if err := addTrailSources(&src, *trail); err != nil {
		return err
	}
	r := impact.Compare(ctx, old, cand, impact.NewUniverse(src))
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.WriteText(e.stdout)
	}
	if err != nil {
		return err
	}
	if r.Widens() {
		return exitStatus{code: policyDiffWidens, msg: fmt.Sprintf("%s widens what %s allows: %d widening change(s) need review",
			pos[1], pos[0], r.Count(impact.Widens))}
	}
	return nil
}

// addTestSources adds the principals, purposes and requests of test
// tables.
func addTestSources(src *impact.Sources, files []string) error {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		suite, err := policytest.Parse(data, f)
		if err != nil {
			return err
		}
		for _, name := range sortedKeys(suite.Principals) {
			src.Principals = append(src.Principals, suite.Principals[name])
		}
		for _, c := range suite.Cases {
			if c.Request == nil {
				continue
			}
			in, err := suite.Input(c)
			if err != nil {
				return fmt.Errorf("%s: %w", c.Pos, err)
			}
			src.Requests = append(src.Requests, in)
			if in.Purpose != "" && !slices.Contains(src.Purposes, in.Purpose) {
				src.Purposes = append(src.Purposes, in.Purpose)
			}
		}
	}
	return nil
}

// addTrailSources adds the principals and capability requests of an audit
// trail. The trail records a principal's id, not its groups or claims, so
// each id joins the universe's named ids (probed alone and with every
// group) and each request is decided as recorded.
func addTrailSources(src *impact.Sources, path string) error {
	if path == "" {
		return nil
	}
	events, err := readTrailFile(path)
	if err != nil {
		return err
	}
	for _, ev := range events {
		for _, id := range []string{ev.Principal, ev.Caller} {
			if id != "" && !slices.Contains(src.Vocabulary.IDs, id) {
				src.Vocabulary.IDs = append(src.Vocabulary.IDs, id)
			}
		}
		if !ev.isIssue() || ev.Agent == "" || len(ev.Grants) == 0 {
			continue
		}
		src.Requests = append(src.Requests, policy.Input{Principal: policy.Principal{ID: ev.Principal},
			Agent: ev.Agent, Grants: ev.Grants, Purpose: ev.Purpose, Now: ev.Time})
		if ev.Purpose != "" && !slices.Contains(src.Purposes, ev.Purpose) {
			src.Purposes = append(src.Purposes, ev.Purpose)
		}
	}
	src.Vocabulary = src.Vocabulary.Merge(policy.Vocabulary{})
	return nil
}

// readTrailFile reads the audit trail at path.
func readTrailFile(path string) ([]trailEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	events, err := readTrail(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return events, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
