package policy_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
)

// genRule is the Go-side model of a generated rule, used to check the
// decisions against it.
type genRule struct {
	id     string
	deny   bool
	groups []string
	agent  string
	grant  string
	ops    []string
	coll   string
	filter []string // allowed values of attribute k
	ttl    time.Duration
	depth  int
}

var (
	propGroups = []string{"x", "y", "z"}
	propColls  = []string{"c1", "c2"}
	propVals   = []string{"v1", "v2", "v3"}
)

func propCatalog() policy.Catalog {
	return policy.Catalog{Agents: map[string]policy.AgentCatalog{
		"a": {Grants: map[string]policy.Grant{
			"g1": {ID: "g1", Operations: []string{"o1", "o2", "o3"}, Attenuable: true},
			"g2": {ID: "g2", Operations: []string{"o4", "o5"}, Requires: []string{"g1"}},
			"g3": {ID: "g3", Operations: []string{"*"}},
		}},
		"b": {Grants: map[string]policy.Grant{"g1": {ID: "g1", Operations: []string{"o1", "o2"}}}},
	}}
}

// pick returns a random non-empty subset of vals (or nil with probability
// pNone).
func pick(r *rand.Rand, vals []string, pNone float64) []string {
	if r.Float64() < pNone {
		return nil
	}
	var out []string
	for _, v := range vals {
		if r.IntN(2) == 0 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = []string{vals[r.IntN(len(vals))]}
	}
	return out
}

func genPolicy(r *rand.Rand, cat policy.Catalog) (string, []genRule) {
	var b strings.Builder
	b.WriteString("version: 1\nrules:\n")
	var rules []genRule
	for i := range 2 + r.IntN(10) {
		agent := []string{"a", "b"}[r.IntN(2)]
		grants := sortedGrantIDs(cat, agent)
		g := genRule{id: fmt.Sprintf("r%d", i), deny: r.IntN(4) == 0, groups: pick(r, propGroups, 0),
			agent: agent, grant: grants[r.IntN(len(grants))]}
		gops := cat.Agents[agent].Grants[g.grant].Operations
		if gops[0] == "*" {
			g.ops = pick(r, []string{"o1", "o7", "o8"}, 0)
		} else {
			g.ops = pick(r, gops, 0.4)
		}
		if r.IntN(2) == 0 {
			g.coll = propColls[r.IntN(2)]
			g.filter = pick(r, propVals, 0.5)
		}
		if !g.deny {
			g.ttl, g.depth = time.Duration(1+r.IntN(120))*time.Minute, r.IntN(4)
		}
		rules = append(rules, g)
		writeRule(&b, g)
	}
	return b.String(), rules
}

func writeRule(b *strings.Builder, g genRule) {
	effect := "allow"
	if g.deny {
		effect = "deny"
	}
	fmt.Fprintf(b, "  - id: %s\n    effect: %s\n    principals: {groups: [%s]}\n    agents: [%s]\n    grants: [%s]\n",
		g.id, effect, strings.Join(g.groups, ", "), g.agent, g.grant)
	if g.ops != nil {
		fmt.Fprintf(b, "    operations: [%s]\n", strings.Join(g.ops, ", "))
	}
	if g.coll != "" {
		fmt.Fprintf(b, "    resources: {collection: %s", g.coll)
		if g.filter != nil {
			fmt.Fprintf(b, ", filter: {k: [%s]}", strings.Join(g.filter, ", "))
		}
		b.WriteString("}\n")
	}
	if !g.deny {
		fmt.Fprintf(b, "    max_ttl: %s\n    max_delegation_depth: %d\n", g.ttl, g.depth)
	}
}

func sortedGrantIDs(cat policy.Catalog, agent string) []string {
	var out []string
	for id := range cat.Agents[agent].Grants {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func genInput(r *rand.Rand, cat policy.Catalog, now time.Time) policy.Input {
	agent := []string{"a", "b"}[r.IntN(2)]
	in := policy.Input{Principal: policy.Principal{ID: "p", Groups: pick(r, propGroups, 0.1)}, Agent: agent,
		Grants: pick(r, sortedGrantIDs(cat, agent), 0), Operations: pick(r, []string{"o1", "o2", "o3", "o4", "o5", "o7"}, 0.5), Now: now}
	if r.IntN(2) == 0 {
		in.Resource = &policy.ResourceQuery{Collection: []string{"", "c1", "c2"}[r.IntN(3)]}
		if r.IntN(2) == 0 {
			in.Resource.Filter = map[string]string{"k": propVals[r.IntN(3)]}
		}
	}
	if r.IntN(2) == 0 {
		in.Expires = now.Add(time.Duration(r.IntN(180)-10) * time.Minute)
	}
	return in
}

// TestIntersectionProperties generates random policies and requests and
// checks that what is issued is never wider than the grant, the request or
// the rule that issued it, and that deny rules always win.
func TestIntersectionProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(2025, 1))
	cat := propCatalog()
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	issued := 0
	for iter := range 400 {
		src, rules := genPolicy(r, cat)
		p, _, err := policy.Load(context.Background(), []byte(src), "gen.yaml", cat)
		if err != nil {
			t.Fatalf("generated policy does not load: %v\n%s", err, src)
		}
		for range 25 {
			in := genInput(r, cat, now)
			d := p.Decide(context.Background(), in)
			if again := p.Decide(context.Background(), in); !reflect.DeepEqual(d, again) {
				t.Fatalf("iteration %d: decision is not deterministic", iter)
			}
			for _, gd := range d.Grants {
				issued++
				checkGrantDecision(t, cat, rules, in, gd, d)
			}
			checkNarrowerRequest(t, p, in, d)
		}
	}
	if issued < 500 {
		t.Fatalf("only %d grants issued: the generator does not exercise allow paths", issued)
	}
}

func checkGrantDecision(t *testing.T, cat policy.Catalog, rules []genRule, in policy.Input, gd policy.GrantDecision, d policy.Decision) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\ninput %+v\ngrant %+v", fmt.Sprintf(format, args...), in, gd)
	}
	def := cat.Agents[in.Agent].Grants[gd.Grant]
	idx := slices.IndexFunc(rules, func(g genRule) bool { return g.id == gd.Rule })
	if idx < 0 || rules[idx].deny || rules[idx].agent != in.Agent || rules[idx].grant != gd.Grant {
		fail("issued by an unknown or unrelated rule")
	}
	rule := rules[idx]
	if !slices.ContainsFunc(rule.groups, func(g string) bool { return slices.Contains(in.Principal.Groups, g) }) {
		fail("rule does not match the principal")
	}
	if !slices.Contains(in.Grants, gd.Grant) || len(gd.Operations) == 0 {
		fail("grant not requested, or issued without operations")
	}
	for _, op := range gd.Operations {
		if op == "*" || (def.Operations[0] != "*" && !slices.Contains(def.Operations, op)) {
			fail("operation %q outside the grant", op)
		}
		if rule.ops != nil && !slices.Contains(rule.ops, op) {
			fail("operation %q outside the rule", op)
		}
		if len(in.Operations) > 0 && !slices.Contains(in.Operations, op) {
			fail("operation %q not requested", op)
		}
	}
	if !gd.Expires.After(in.Now) || gd.Expires.After(in.Now.Add(rule.ttl)) ||
		(!in.Expires.IsZero() && gd.Expires.After(in.Expires)) {
		fail("expiry %s outside (now, min(requested, now+%s)]", gd.Expires, rule.ttl)
	}
	if gd.MaxDepth > rule.depth {
		fail("depth %d above the rule's %d", gd.MaxDepth, rule.depth)
	}
	for _, req := range def.Requires {
		if !slices.ContainsFunc(d.Grants, func(o policy.GrantDecision) bool { return o.Grant == req }) {
			fail("issued without its required grant %q", req)
		}
	}
	checkResources(t, rules, rule, in, gd, fail)
}

// checkResources enumerates every resource of the small universe and checks
// that Permits admits only resources inside the rule, inside the request and
// outside every matching deny rule.
func checkResources(t *testing.T, rules []genRule, rule genRule, in policy.Input, gd policy.GrantDecision, fail func(string, ...any)) {
	t.Helper()
	for _, c := range propColls {
		for _, v := range propVals {
			res := policy.Resource{Collection: c, ID: c + "-" + v, Attributes: map[string]string{"k": v}}
			if !gd.Permits(res) {
				continue
			}
			if !inside(rule.coll, rule.filter, res) {
				fail("permits %s/%s outside the rule", c, v)
			}
			if q := in.Resource; q != nil && ((q.Collection != "" && q.Collection != c) || (q.Filter != nil && q.Filter["k"] != v)) {
				fail("permits %s/%s outside the request", c, v)
			}
			for _, dr := range rules {
				if dr.deny && dr.agent == in.Agent && dr.grant == gd.Grant && dr.ops == nil &&
					slices.ContainsFunc(dr.groups, func(g string) bool { return slices.Contains(in.Principal.Groups, g) }) &&
					(dr.coll == "" || inside(dr.coll, dr.filter, res)) {
					fail("permits %s/%s that deny rule %s removes", c, v, dr.id)
				}
				if dr.deny && dr.agent == in.Agent && dr.grant == gd.Grant && dr.ops != nil &&
					slices.ContainsFunc(dr.groups, func(g string) bool { return slices.Contains(in.Principal.Groups, g) }) &&
					slices.ContainsFunc(gd.Operations, func(op string) bool { return slices.Contains(dr.ops, op) }) &&
					(dr.coll == "" || inside(dr.coll, dr.filter, res)) {
					fail("issues an operation deny rule %s removes", dr.id)
				}
			}
		}
	}
}

func inside(coll string, filter []string, res policy.Resource) bool {
	return (coll == "" || res.Collection == coll) && (filter == nil || slices.Contains(filter, res.Attributes["k"]))
}

// checkNarrowerRequest checks monotonicity: asking for fewer operations never
// yields more.
func checkNarrowerRequest(t *testing.T, p *policy.Policy, in policy.Input, d policy.Decision) {
	t.Helper()
	for _, gd := range d.Grants {
		if len(gd.Operations) < 2 {
			continue
		}
		narrow := in
		narrow.Operations = gd.Operations[:1]
		for _, nd := range p.Decide(context.Background(), narrow).Grants {
			for _, op := range nd.Operations {
				if !slices.Contains(gd.Operations, op) {
					t.Fatalf("narrower request got wider operation %q", op)
				}
			}
		}
	}
}
