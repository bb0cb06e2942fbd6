package policy

import "slices"

// Catalog is what the gateway knows about its upstreams: the A2A agents with
// their capability grants and skills, and the A2E hosts with the
// capabilities they may offer. A policy is validated against a Catalog at
// Load time, so a rule can only name things that exist. The policy package
// never reads the gateway config itself.
type Catalog struct {
	// Agents maps an agent name (the {agent} of /a2a/{agent}) to its catalog.
	Agents map[string]AgentCatalog
	// A2EHosts maps an A2E host name (the {host} of /a2e/{host}) to its catalog.
	A2EHosts map[string]A2EHostCatalog
}

// AgentCatalog describes one A2A agent.
type AgentCatalog struct {
	// Grants maps a grant id (for example documents:read) to its definition.
	Grants map[string]Grant
	// Skills maps a skill name to the single operation it performs.
	Skills map[string]string
	// Legacy marks an agent that does not understand capabilities. Only such
	// agents may be reached through ambient rules.
	Legacy bool
}

// Grant is one capability grant an agent offers: the gateway's one
// definition of it, which the config declares (its yaml keys are the
// config file's agents[].grants entries), the policy decides on, and
// discovery and the served agent card describe. The card's wire form is
// agentcard.Grant.
type Grant struct {
	// ID is the grant id, for example documents:read.
	ID string `yaml:"id"`
	// Description says what the grant is for, to humans.
	Description string `yaml:"description,omitempty"`
	// Operations lists the operations the grant covers; "*" means any, in
	// which case a rule must name the operations it allows.
	Operations []string `yaml:"operations"`
	// Attenuable says whether a capability of this grant may be attenuated.
	Attenuable bool `yaml:"attenuable"`
	// Requires lists grants that must be issued in the same decision.
	Requires []string `yaml:"requires,omitempty"`
	// Legacy marks a wrapper around a non-capability-aware service.
	Legacy bool `yaml:"legacy,omitempty"`
	// WholeAgent marks a grant over the agent as a whole: its capabilities
	// name no resources, so issuing one needs no resolution. It is issued
	// only under a policy rule that constrains no resources.
	WholeAgent bool `yaml:"whole_agent,omitempty"`
}

// A2EHostCatalog describes one A2E host.
type A2EHostCatalog struct {
	// Capabilities lists the A2E capability names the host may offer.
	Capabilities []string
}

// A2ECapabilityNames returns the A2E capability names, in the order of the
// A2E specification. The slice is fresh on every call.
func A2ECapabilityNames() []string {
	return []string{"skill", "tools", "toolkits", "env", "proc", "memory",
		"learning", "chains", "mcp", "multi_agent", "planning"}
}

// IsA2ECapability reports whether name is one of A2ECapabilityNames.
func IsA2ECapability(name string) bool {
	switch name {
	case "skill", "tools", "toolkits", "env", "proc", "memory",
		"learning", "chains", "mcp", "multi_agent", "planning":
		return true
	}
	return false
}

// anyOperation reports whether a grant's operations are the wildcard.
func (g Grant) anyOperation() bool {
	return slices.Contains(g.Operations, "*")
}
