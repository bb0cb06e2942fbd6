package discovery

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/policy"
)

// Input is everything one snapshot is computed from. Snapshot reads it and
// never modifies it.
type Input struct {
	// Agent is the agent's name under /a2a/ (and in the policy catalog).
	Agent string
	// Card is the upstream card as fetched; nil when unavailable, in which
	// case what it would tell is omitted.
	Card map[string]any
	// PublicURL is the agent's URL at the gateway.
	PublicURL string
	// Grants are the agent's configured grants.
	Grants []policy.Grant
	// Skills maps each skill to the operation it performs.
	Skills map[string]string
	// Policy is the policy in force for this request.
	Policy *policy.Policy
	// Principal is the authenticated caller.
	Principal policy.Principal
	// Now is the decision time.
	Now time.Time

	// Collections optionally lists resource collections to probe besides
	// the query-less decision, so that allow rules reached only by a
	// narrower request are found (see the package documentation).
	Collections []string
	// SubAgents optionally lists the agents that capabilities for this
	// agent may be delegated to; shown only when this principal may
	// delegate.
	SubAgents []SubAgent
	// MaxExecutionTime is the gateway's limit on one upstream call; zero
	// means unknown.
	MaxExecutionTime time.Duration
}

// Snapshot computes the AG-UI capability snapshot of in.Agent for
// in.Principal under in.Policy. It lists only what this principal could
// actually do: tools are the skills whose operation some grant could be
// issued with (or, on a legacy agent, that an ambient rule allows), and
// custom.capabilityGrants lists those grants with their caps. Nothing is
// issued or recorded. What is unknown is omitted, never guessed.
//
// A principal that may do nothing gets a snapshot saying so. An error
// means the snapshot could not be computed (ErrNoPolicy, ErrNoClock,
// ErrNoAgent, or ctx's error) and no partial snapshot is returned.
func Snapshot(ctx context.Context, in Input) (AgentCapabilities, error) {
	switch {
	case in.Policy == nil:
		return AgentCapabilities{}, ErrNoPolicy
	case in.Now.IsZero():
		return AgentCapabilities{}, ErrNoClock
	case in.Agent == "":
		return AgentCapabilities{}, ErrNoAgent
	}
	if err := ctx.Err(); err != nil {
		return AgentCapabilities{}, fmt.Errorf("discovery: %w", err)
	}
	list, err := probe(ctx, &in)
	if err != nil {
		return AgentCapabilities{}, fmt.Errorf("discovery: %w", err)
	}
	ambient, err := ambientSkills(ctx, &in)
	if err != nil {
		return AgentCapabilities{}, fmt.Errorf("discovery: %w", err)
	}
	grants := grantCaps(list, &in)
	custom := map[string]any{
		CustomCapabilityGrants:    grants,
		CustomCapabilityExtension: agentcard.ExtensionURI,
		CustomPrincipal:           in.Principal.ID,
		CustomPolicyRevision:      in.Policy.Revision(),
	}
	if len(ambient) > 0 {
		custom[CustomAmbientSkills] = ambient
	}
	return AgentCapabilities{
		Identity:   identity(&in),
		Transport:  transport(in.Card),
		Tools:      tools(&in, grants, ambient),
		Output:     output(in.Card),
		MultiAgent: multiAgent(&in, grants),
		Execution:  execution(in.MaxExecutionTime),
		Custom:     custom,
	}, nil
}

// tools lists, sorted by name, every skill some grant could allow or an
// ambient rule allows. Supported is false when there is none.
func tools(in *Input, grants []GrantCaps, ambient []string) *ToolsCapabilities {
	names := slices.Clone(ambient)
	for _, g := range grants {
		names = append(names, g.Skills...)
	}
	t := &ToolsCapabilities{}
	for _, name := range sortedSet(names) {
		t.Items = append(t.Items, Tool{Name: name, Description: skillDescription(in, name)})
	}
	t.Supported = ptr(len(t.Items) > 0)
	return t
}

// multiAgent says whether this principal may delegate what it could be
// issued here: some grant is attenuable with a depth cap of at least 1.
func multiAgent(in *Input, grants []GrantCaps) *MultiAgentCapabilities {
	delegation := slices.ContainsFunc(grants, func(g GrantCaps) bool {
		return g.Attenuable && g.MaxDelegationDepth > 0
	})
	m := &MultiAgentCapabilities{Supported: ptr(delegation), Delegation: ptr(delegation)}
	if delegation {
		for _, a := range in.SubAgents {
			if a.Name != "" && a.Name != in.Agent {
				m.SubAgents = append(m.SubAgents, a)
			}
		}
	}
	return m
}

// execution reports the gateway's upstream time limit, when known.
func execution(limit time.Duration) *ExecutionCapabilities {
	if limit <= 0 {
		return nil
	}
	return &ExecutionCapabilities{MaxExecutionTime: ptr(limit.Milliseconds())}
}

func ptr[T any](v T) *T { return &v }
