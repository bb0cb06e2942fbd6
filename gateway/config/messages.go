package config

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
	Operation string `yaml:"operation"`
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
	} else if !a.offers(m.Operation) {
		add(p+".messages.operation", "operation %q is in no grant of this agent", m.Operation)
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
