package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
)

// benchPolicy generates a policy of n rules. With spread, rules are spread
// over 50 agents × 4 grants (the index leaves ~5 rules per lookup); without,
// every rule names the same agent and grant and only the last one matches
// the benchmark principal (the worst case for first-match scanning).
func benchPolicy(b *testing.B, n int, spread bool) (*policy.Policy, policy.Input) {
	cat := policy.Catalog{Agents: map[string]policy.AgentCatalog{}}
	for a := range 50 {
		grants := map[string]policy.Grant{}
		for g := range 4 {
			id := fmt.Sprintf("g%d", g)
			grants[id] = policy.Grant{ID: id, Operations: []string{"read", "list", "write"}, Attenuable: true}
		}
		cat.Agents[fmt.Sprintf("agent%d", a)] = policy.AgentCatalog{Grants: grants}
	}
	var sb strings.Builder
	sb.WriteString("version: 1\nrules:\n")
	for i := range n {
		agent, grant, group := fmt.Sprintf("agent%d", i%50), fmt.Sprintf("g%d", (i/50)%4), fmt.Sprintf("team%d", i)
		if !spread {
			agent, grant = "agent0", "g0"
		}
		effect, extra := "allow", "    operations: [read, list]\n    max_ttl: 1h\n    resources: {collection: c, filter: {region: [eu, us]}}\n"
		switch {
		case i%10 == 3:
			effect, extra = "deny", "    resources: {collection: secret}\n"
		case i%10 == 7:
			extra += "    conditions: ['request.purpose != \"\" && now > request.expires - duration(\"24h\")']\n"
		}
		fmt.Fprintf(&sb, "  - id: r%d\n    effect: %s\n    principals: {groups: [%s, shared%d]}\n    agents: [%s]\n    grants: [%s]\n%s",
			i, effect, group, i%7, agent, grant, extra)
	}
	p, _, err := policy.Load(context.Background(), []byte(sb.String()), "bench.yaml", cat)
	if err != nil {
		b.Fatal(err)
	}
	target := fmt.Sprintf("team%d", n-3) // an allow rule with a condition
	in := policy.Input{Principal: policy.Principal{ID: "user:bench", Groups: []string{"other", target}},
		Agent: fmt.Sprintf("agent%d", (n-3)%50), Grants: []string{fmt.Sprintf("g%d", ((n-3)/50)%4)},
		Operations: []string{"read"}, Resource: &policy.ResourceQuery{Collection: "c", Filter: map[string]string{"region": "eu"}},
		Purpose: "benchmark", Expires: noon.Add(30 * 60e9), Now: noon}
	if !spread {
		in.Agent, in.Grants = "agent0", []string{"g0"}
	}
	if d := p.Decide(context.Background(), in); !d.Allow {
		b.Fatalf("benchmark request denied: %+v", d.Reasons)
	}
	return p, in
}

// BenchmarkDecide decides against a generated 1,000-rule policy.
func BenchmarkDecide(b *testing.B) {
	for _, bc := range []struct {
		name   string
		spread bool
	}{{"1000rules_indexed", true}, {"1000rules_same_grant_last_match", false}} {
		b.Run(bc.name, func(b *testing.B) {
			p, in := benchPolicy(b, 1000, bc.spread)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if !p.Decide(ctx, in).Allow {
					b.Fatal("denied")
				}
			}
		})
	}
}

// BenchmarkDecideQuickstart decides alice's quickstart read.
func BenchmarkDecideQuickstart(b *testing.B) {
	p := loadQuickstart(b)
	in := policy.Input{Principal: policy.Principal{ID: "user:alice@example.com", Groups: []string{"finance"}},
		Agent: "documents", Grants: []string{"documents:read"}, Resource: reports(nil), Now: noon}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p.Decide(ctx, in)
	}
}

// BenchmarkLoad1000 measures loading (parsing, validating, compiling CEL)
// a 1,000-rule policy.
func BenchmarkLoad1000(b *testing.B) {
	benchPolicy(b, 1000, true)
	b.ResetTimer()
	for b.Loop() {
		benchPolicy(b, 1000, true)
	}
}
