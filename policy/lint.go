package policy

import "slices"

// lint records warnings about rules that can never take effect and about
// risky but valid choices. Warnings never prevent loading.
func (c *compiler) lint(p *Policy) {
	for _, r := range p.rules {
		if r.effect != EffectAllow {
			continue
		}
		c.lintAllow(p, r)
	}
	for _, r := range p.a2e {
		if r.effect != EffectAllow || slices.Contains(r.caps, "*") {
			continue
		}
		for _, h := range r.hosts {
			offered := c.cat.A2EHosts[h].Capabilities
			for i, name := range r.caps {
				if len(offered) > 0 && !slices.Contains(offered, name) {
					c.ps.warn(itemPath(r.path+".capabilities", i), ErrNeverMatches,
						"host %q does not offer capability %q; this rule can never enable it there", h, name)
				}
			}
		}
	}
}

// lintAllow warns when an allow rule is shadowed on every target by an
// earlier allow rule, or overridden on every target by an unconditional
// deny rule, and when it issues a legacy grant.
func (c *compiler) lintAllow(p *Policy, r *rule) {
	shadowedBy, deniedBy := "", ""
	live := 0
	for _, t := range r.targets {
		if g := c.cat.Agents[t.agent].Grants[t.grant]; g.Legacy {
			c.ps.warn(r.path+".grants", ErrLegacyGrant,
				"grant %q of agent %q is a legacy wrapper with reduced security guarantees", t.grant, t.agent)
		}
		if s := shadowing(p.allow[t.agent][t.grant], r); s != nil {
			shadowedBy = s.id
			continue
		}
		if d := overriding(p.deny[t.agent][t.grant], r); d != nil {
			deniedBy = d.id
			continue
		}
		live++
	}
	if live > 0 || len(r.targets) == 0 {
		return
	}
	if shadowedBy != "" {
		c.ps.warn(r.path, ErrNeverMatches, "rule %q is never reached: earlier rule %q matches every request it would match (first match wins)", r.id, shadowedBy)
		return
	}
	c.ps.warn(r.path, ErrNeverMatches, "rule %q never issues anything: deny rule %q always overrides it", r.id, deniedBy)
}

// shadowing returns an earlier rule in list that matches every request r
// would match, or nil.
func shadowing(list []*rule, r *rule) *rule {
	for _, e := range list {
		if e == r {
			return nil
		}
		if len(e.conds) > 0 || e.requirePurpose || !e.who.subsumes(&r.who) {
			continue
		}
		if e.res == nil || (r.res != nil && e.res.Covers(*r.res)) {
			return e
		}
	}
	return nil
}

// overriding returns an unconditional deny rule that denies the whole grant
// to every principal r matches, or nil.
func overriding(list []*rule, r *rule) *rule {
	for _, d := range list {
		if len(d.conds) == 0 && d.res == nil && d.ops == nil && d.who.subsumes(&r.who) {
			return d
		}
	}
	return nil
}
