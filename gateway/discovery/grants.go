package discovery

import (
	"context"
	"slices"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// discoveryPurpose is the purpose stated in probe decisions, so that rules
// with require_purpose count: a caller can always state one.
const discoveryPurpose = "capability discovery"

// grantable is one way the principal could be issued a grant.
type grantable struct {
	grant policy.Grant
	gd    policy.GrantDecision
}

// probe asks the policy, for every configured grant, what the principal
// could be issued, without issuing anything: one decision with no resource
// query (the broadest request), then one per collection in in.Collections
// to find allow rules that only a narrower request reaches. Each grant is
// requested together with the grants it requires, as a real request must.
// A probe result from a rule already seen is dropped, so a grant appears
// once per rule (and resource scope) that could issue it.
func probe(ctx context.Context, in *Input) ([]grantable, error) {
	queries := []*policy.ResourceQuery{nil}
	for _, c := range sortedSet(in.Collections) {
		queries = append(queries, &policy.ResourceQuery{Collection: c})
	}
	var out []grantable
	for _, g := range in.Grants {
		seen := map[string]bool{}
		for i, q := range queries {
			d := in.Policy.Decide(ctx, policy.Input{
				Principal: in.Principal, Agent: in.Agent, Grants: withRequires(g.ID, in.Grants),
				Resource: q, Purpose: discoveryPurpose, Now: in.Now,
			})
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			idx := slices.IndexFunc(d.Grants, func(gd policy.GrantDecision) bool { return gd.Grant == g.ID })
			if idx < 0 {
				continue
			}
			gd := d.Grants[idx]
			key := gd.Rule + "\x00" + gd.Resource.String()
			if seen[gd.Rule] || seen[key] {
				continue
			}
			seen[key] = true
			if i == 0 {
				seen[gd.Rule] = true
			}
			out = append(out, grantable{grant: g, gd: gd})
		}
	}
	return out, nil
}

// withRequires returns id and, transitively, every grant it requires, in
// discovery order, each once.
func withRequires(id string, grants []policy.Grant) []string {
	out := []string{id}
	for i := 0; i < len(out); i++ {
		j := slices.IndexFunc(grants, func(g policy.Grant) bool { return g.ID == out[i] })
		if j < 0 {
			continue
		}
		for _, r := range grants[j].Requires {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// ambientSkills lists, sorted, the skills the principal may invoke without
// a capability. The policy only ever allows this on legacy agents.
func ambientSkills(ctx context.Context, in *Input) ([]string, error) {
	var out []string
	for _, skill := range sortedKeys(in.Skills) {
		d := in.Policy.DecideAmbient(ctx, policy.AmbientInput{
			Principal: in.Principal, Agent: in.Agent, Skill: skill,
			Method: jsonrpc.MethodSkillInvoke, Now: in.Now,
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if d.Allow {
			out = append(out, skill)
		}
	}
	return out, nil
}

// grantCaps renders the grantables for the snapshot.
func grantCaps(list []grantable, in *Input) []GrantCaps {
	out := make([]GrantCaps, 0, len(list))
	for _, g := range list {
		out = append(out, GrantCaps{
			ID: g.grant.ID, Description: g.grant.Description,
			Operations:         slices.Clone(g.gd.Operations),
			Skills:             skillsFor(in.Skills, g.gd.Operations),
			Resources:          scopeOf(g.gd),
			MaxTTLSeconds:      int64(g.gd.Expires.Sub(in.Now).Seconds()),
			MaxDelegationDepth: g.gd.MaxDepth,
			Attenuable:         g.gd.Attenuable,
			Requires:           slices.Clone(g.grant.Requires),
			NeedsApproval:      g.gd.Approval != nil,
		})
	}
	return out
}

// skillsFor lists, sorted, the skills whose operation is in ops.
func skillsFor(skills map[string]string, ops []string) []string {
	var out []string
	for _, s := range sortedKeys(skills) {
		if slices.Contains(ops, skills[s]) {
			out = append(out, s)
		}
	}
	return out
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sortedSet returns the non-empty strings of list, sorted, each once.
func sortedSet(list []string) []string {
	out := slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
