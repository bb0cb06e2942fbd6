package policy

import (
	"slices"
	"strconv"
)

// a2eRules compiles the a2e section.
func (c *compiler) a2eRules(raws []rawA2ERule) []*a2eRule {
	ids := make(map[string]string)
	out := make([]*a2eRule, 0, len(raws))
	for i := range raws {
		r := &raws[i]
		path := "a2e[" + strconv.Itoa(i) + "]"
		ar := &a2eRule{ruleHead: c.head(path, ids, r.ID, r.Description, r.Effect, r.Principals, r.Conditions)}
		ar.hosts = c.hosts(path+".hosts", r.Hosts)
		ar.caps = c.capabilities(path+".capabilities", r.Capabilities)
		out = append(out, ar)
	}
	return out
}

// hosts validates host names; "*" expands to every catalog host.
func (c *compiler) hosts(path string, hosts []string) []string {
	if !c.required(path, hosts, "hosts") {
		return nil
	}
	if c.wildcard(path, hosts) {
		return sortedKeys(c.cat.A2EHosts)
	}
	for i, h := range hosts {
		if _, ok := c.cat.A2EHosts[h]; !ok {
			c.ps.add(itemPath(path, i), ErrUnknownHost, "unknown A2E host %q (catalog hosts: %s)", h, names(c.cat.A2EHosts))
		}
	}
	return dedupe(hosts)
}

// capabilities validates A2E capability names.
func (c *compiler) capabilities(path string, caps []string) []string {
	if !c.required(path, caps, "capabilities") {
		return nil
	}
	if c.wildcard(path, caps) {
		return []string{"*"}
	}
	for i, name := range caps {
		if !IsA2ECapability(name) {
			c.ps.add(itemPath(path, i), ErrUnknownCapability, "unknown A2E capability %q (known: %s)", name, list(A2ECapabilityNames()))
		}
	}
	return dedupe(caps)
}

// ambientRules compiles the ambient section.
func (c *compiler) ambientRules(raws []rawAmbientRule) []*ambientRule {
	ids := make(map[string]string)
	out := make([]*ambientRule, 0, len(raws))
	for i := range raws {
		r := &raws[i]
		path := "ambient[" + strconv.Itoa(i) + "]"
		ar := &ambientRule{ruleHead: c.head(path, ids, r.ID, r.Description, r.Effect, r.Principals, r.Conditions)}
		ar.agents = c.legacyAgents(path+".agents", r.Agents)
		ar.skills, ar.methods = dedupe(r.Skills), dedupe(r.Methods)
		if len(r.Skills) == 0 && len(r.Methods) == 0 {
			c.ps.add(path+".skills", ErrMissingField, `an ambient rule must list skills or methods (write ["*"] for any)`)
		}
		c.wildcard(path+".methods", r.Methods)
		if !c.wildcard(path+".skills", r.Skills) {
			c.skills(path+".skills", ar.agents, r.Skills)
		}
		out = append(out, ar)
	}
	return out
}

// legacyAgents validates that every agent exists and is marked legacy; "*"
// means every legacy agent.
func (c *compiler) legacyAgents(path string, agents []string) []string {
	if !c.required(path, agents, "agents") {
		return nil
	}
	if c.wildcard(path, agents) {
		var out []string
		for _, a := range sortedKeys(c.cat.Agents) {
			if c.cat.Agents[a].Legacy {
				out = append(out, a)
			}
		}
		return out
	}
	for i, a := range agents {
		ac, ok := c.cat.Agents[a]
		switch {
		case !ok:
			c.ps.add(itemPath(path, i), ErrUnknownAgent, "unknown agent %q (catalog agents: %s)", a, names(c.cat.Agents))
		case !ac.Legacy:
			c.ps.add(itemPath(path, i), ErrNotLegacy, "agent %q understands capabilities; ambient calls are only for agents marked legacy", a)
		}
	}
	return dedupe(agents)
}

// skills checks skill names against agents that publish a skill list.
func (c *compiler) skills(path string, agents, skills []string) {
	for i, s := range skills {
		for _, a := range agents {
			known := c.cat.Agents[a].Skills
			if _, ok := known[s]; len(known) > 0 && !ok {
				c.ps.add(itemPath(path, i), ErrUnknownSkill, "agent %q has no skill %q (its skills: %s)", a, s, names(known))
			}
		}
	}
}

// buildIndexes fills the lookup maps, preserving file order in each list.
func (p *Policy) buildIndexes() {
	p.allow = make(map[string]map[string][]*rule)
	p.deny = make(map[string]map[string][]*rule)
	for _, r := range p.rules {
		idx := p.allow
		if r.effect == EffectDeny {
			idx = p.deny
		}
		for _, t := range r.targets {
			if idx[t.agent] == nil {
				idx[t.agent] = make(map[string][]*rule)
			}
			if !slices.Contains(idx[t.agent][t.grant], r) {
				idx[t.agent][t.grant] = append(idx[t.agent][t.grant], r)
			}
		}
	}
	p.a2eAllow, p.a2eDeny = make(map[string][]*a2eRule), make(map[string][]*a2eRule)
	for _, r := range p.a2e {
		idx := pick(r.effect, p.a2eAllow, p.a2eDeny)
		for _, h := range r.hosts {
			idx[h] = append(idx[h], r)
		}
	}
	p.ambAllow, p.ambDeny = make(map[string][]*ambientRule), make(map[string][]*ambientRule)
	for _, r := range p.ambient {
		idx := pick(r.effect, p.ambAllow, p.ambDeny)
		for _, a := range r.agents {
			idx[a] = append(idx[a], r)
		}
	}
}

// pick returns allow or deny by effect.
func pick[T any](e Effect, allow, deny T) T {
	if e == EffectDeny {
		return deny
	}
	return allow
}
