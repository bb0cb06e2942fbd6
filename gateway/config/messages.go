package config

import (
	"maps"
	"slices"
)

// Messages makes an agent's messaging capability-gated. With it, every
// send to the agent (message/send, message/stream, SendMessage,
// SendStreamingMessage, tasks/send) and every follow-up on one of its
// tasks must present a capability for the agent, held by the caller and
// live, whose operations cover what the message does. Without it, sends
// are forwarded on authentication alone: the migration path for agents
// whose callers hold no capabilities yet.
type Messages struct {
	// RequireCapability turns the gate on.
	RequireCapability bool `yaml:"require_capability"`
	// Operation is the operation a message needs when it names no skill
	// of the agent's skills map; it must be in one of the agent's grants.
	// The gateway cannot tell what free text asks for, so this operation
	// must cover everything the agent may do with a message naming no
	// skill: the operation of every skill in the skills map (or "*"),
	// unless AgentEnforcesOperations is set.
	Operation string `yaml:"operation"`
	// AgentEnforcesOperations declares that the agent itself refuses any
	// action outside the operations the gateway vouches for in the
	// A2A-Capability-Operations header (gateway/client's VouchedHandler
	// and RequireOperation do it in one line). Only then may Operation be
	// narrower than the agent's skills.
	AgentEnforcesOperations bool `yaml:"agent_enforces_operations,omitempty"`
}

// Unmapped-id handling: what the gateway does with a real resource id in
// an answer that it cannot map back to a handle the caller holds.
const (
	// UnmappedRedact replaces the id with UnmappedPlaceholder (default).
	UnmappedRedact = "redact"
	// UnmappedRefuse refuses the whole answer (or ends the stream).
	UnmappedRefuse = "refuse"
)

// UnmappedPlaceholder is what a redacted resource id becomes.
const UnmappedPlaceholder = "[resource]"

func (a Agent) validateMessages(p string, add addFunc) {
	switch a.UnmappedIDs {
	case "", UnmappedRedact, UnmappedRefuse:
	default:
		add(p+".unmapped_ids", "%q must be redact or refuse", a.UnmappedIDs)
	}
	m := a.Messages
	if m == nil {
		return
	}
	if !m.RequireCapability {
		add(p+".messages.require_capability", "must be true when messages is set (omit messages to forward sends on authentication)")
	}
	if a.Legacy {
		add(p+".messages", "a legacy agent cannot gate messages: its callers hold no capabilities")
	}
	if m.Operation == "" {
		add(p+".messages.operation", "is required: the operation a message naming no skill needs")
		return
	}
	if !a.offers(m.Operation) {
		add(p+".messages.operation", "operation %q is in no grant of this agent", m.Operation)
	}
	if !m.AgentEnforcesOperations {
		a.validateFreeText(p, add)
	}
}

// validateFreeText refuses a messaging operation narrower than one of the
// agent's skills: a message naming no skill is allowed under
// messages.operation, and the agent may read any of its skills into the
// text, so a capability for that operation alone would perform them all.
func (a Agent) validateFreeText(p string, add addFunc) {
	op := a.Messages.Operation
	for _, skill := range slices.Sorted(maps.Keys(a.Skills)) {
		if so := a.Skills[skill]; so != op && op != "*" {
			add(p+".messages.operation", "operation %q does not cover skill %s (%q), which a message naming no skill may ask for in free text: "+
				"set an operation covering every skill, or messages.agent_enforces_operations: true if the agent refuses actions outside A2A-Capability-Operations",
				op, skill, so)
		}
	}
}

// offers reports whether one of the agent's grants lists op.
func (a Agent) offers(op string) bool {
	for _, g := range a.Grants {
		for _, o := range g.Operations {
			if o == op || o == "*" {
				return true
			}
		}
	}
	return false
}
