package config

import "github.com/capgate/capgate/policy"

// Catalog returns what the config says the gateway fronts, in the shape the
// policy is validated against, so that a rule can only name agents,
// grants, skills and A2E capabilities that exist. An MCP server is a
// target like an agent: it is listed among the agents under its name,
// its tools as the skills.
func (c *Config) Catalog() policy.Catalog {
	cat := policy.Catalog{Agents: map[string]policy.AgentCatalog{}, A2EHosts: map[string]policy.A2EHostCatalog{}}
	for _, a := range c.Agents {
		ac := policy.AgentCatalog{Grants: map[string]policy.Grant{}, Skills: map[string]string{}, Legacy: a.Legacy}
		for _, g := range a.Grants {
			ac.Grants[g.ID] = g
		}
		for s, op := range a.Skills {
			ac.Skills[s] = op
		}
		cat.Agents[a.Name] = ac
	}
	c.mcpCatalog(cat)
	for _, h := range c.A2EHosts {
		cat.A2EHosts[h.Name] = policy.A2EHostCatalog{Capabilities: h.Capabilities}
	}
	return cat
}
