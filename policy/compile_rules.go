package policy

import (
	"slices"
	"strconv"
	"strings"
)

// rules compiles the A2A grant rules section.
func (c *compiler) rules(raws []rawRule) []*rule {
	ids := make(map[string]string)
	out := make([]*rule, 0, len(raws))
	for i := range raws {
		out = append(out, c.rule("rules["+strconv.Itoa(i)+"]", ids, &raws[i]))
	}
	return out
}

func (c *compiler) rule(path string, ids map[string]string, r *rawRule) *rule {
	out := &rule{ruleHead: c.head(path, ids, r.ID, r.Description, r.Effect, r.Principals, r.Conditions)}
	out.targets = c.targets(path, r.Agents, r.Grants)
	out.ops = c.operations(path, out, r.Operations)
	out.res = c.resources(path+".resources", r.Resources)
	c.limits(path, out, r)
	out.approval = c.approval(path+".approval", out.effect, r.Approval)
	return out
}

// targets expands agents × grants into (agent, grant) pairs, reporting
// unknown names. "*" agents means every agent that has the grant; "*"
// grants means every grant of each agent.
func (c *compiler) targets(path string, agents, grants []string) []target {
	if !c.required(path+".agents", agents, "agents") || !c.required(path+".grants", grants, "grants") {
		return nil
	}
	anyAgent := c.wildcard(path+".agents", agents)
	anyGrant := c.wildcard(path+".grants", grants)
	if anyAgent {
		agents = sortedKeys(c.cat.Agents)
	}
	for i, a := range agents {
		if _, ok := c.cat.Agents[a]; !ok && !anyAgent {
			c.ps.add(itemPath(path+".agents", i), ErrUnknownAgent, "unknown agent %q (catalog agents: %s)", a, names(c.cat.Agents))
		}
	}
	var out []target
	for _, a := range agents {
		ac, ok := c.cat.Agents[a]
		if !ok {
			continue
		}
		if anyGrant {
			for _, g := range sortedKeys(ac.Grants) {
				out = append(out, target{a, g})
			}
			continue
		}
		for i, g := range grants {
			if _, ok := ac.Grants[g]; ok {
				out = append(out, target{a, g})
			} else if !anyAgent {
				c.ps.add(itemPath(path+".grants", i), ErrUnknownGrant, "agent %q has no grant %q (its grants: %s)", a, g, names(ac.Grants))
			}
		}
	}
	if anyAgent && !anyGrant {
		for i, g := range grants {
			if !slices.ContainsFunc(out, func(t target) bool { return t.grant == g }) {
				c.ps.add(itemPath(path+".grants", i), ErrUnknownGrant, "no agent has grant %q", g)
			}
		}
	}
	return out
}

// operations validates the rule's operations against every targeted grant.
func (c *compiler) operations(path string, r *rule, ops []string) []string {
	path += ".operations"
	for i, op := range ops {
		if op == "*" || strings.TrimSpace(op) == "" {
			c.ps.add(itemPath(path, i), ErrUnknownOperation, "operations must be named explicitly (found %q)", op)
		}
	}
	for _, t := range r.targets {
		g := c.cat.Agents[t.agent].Grants[t.grant]
		if g.anyOperation() {
			if len(ops) == 0 && r.effect == EffectAllow {
				c.ps.add(path, ErrMissingField, "grant %q allows any operation (\"*\"); an allow rule for it must list the operations it allows", t.grant)
			}
			continue
		}
		for i, op := range ops {
			if op != "*" && !slices.Contains(g.Operations, op) {
				c.ps.add(itemPath(path, i), ErrUnknownOperation, "operation %q is outside grant %q (its operations: %s)", op, t.grant, list(g.Operations))
			}
		}
	}
	if len(ops) == 0 {
		return nil
	}
	return dedupe(ops)
}

// limits compiles max_ttl, max_delegation_depth and require_purpose, which
// only make sense on allow rules.
func (c *compiler) limits(path string, out *rule, r *rawRule) {
	if r.Effect == "deny" {
		if r.MaxTTL != "" || r.MaxDelegationDepth != nil || r.RequirePurpose {
			c.ps.add(path+".effect", ErrInvalidRule, "max_ttl, max_delegation_depth and require_purpose only apply to allow rules")
		}
		return
	}
	if out.effect == EffectDeny {
		return // a bad effect, already reported
	}
	out.maxTTL, out.ttlFrom = c.defaultTTL, c.ttlFrom
	if r.MaxTTL != "" {
		if ttl, ok := c.ttl(path+".max_ttl", r.MaxTTL); ok {
			out.maxTTL, out.ttlFrom = ttl, "rule"
		}
	}
	out.maxDepth = c.defaultDepth
	if r.MaxDelegationDepth != nil {
		out.maxDepth = c.depth(path+".max_delegation_depth", *r.MaxDelegationDepth)
	}
	out.requirePurpose = r.RequirePurpose
}

// dedupe returns vals without repeats, keeping first occurrences in order.
func dedupe(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
