package discovery

import (
	"slices"

	"github.com/capgate/capgate/policy"
)

// Keys of AgentCapabilities.Custom that Snapshot sets.
const (
	// CustomCapabilityGrants holds []GrantCaps: what this principal could be
	// issued, with its caps. Always present; empty when nothing.
	CustomCapabilityGrants = "capabilityGrants"
	// CustomAmbientSkills holds the skills this principal may invoke on a
	// legacy agent without a capability ([]string), when there are any.
	CustomAmbientSkills = "ambientSkills"
	// CustomCapabilityExtension holds the capability-negotiation extension
	// URI: tools are invoked with a2a/skill/invoke and a capabilityId.
	CustomCapabilityExtension = "capabilityExtension"
	// CustomPrincipal holds the principal id the snapshot was computed for.
	CustomPrincipal = "principal"
	// CustomPolicyRevision holds the revision of the policy that decided.
	CustomPolicyRevision = "policyRevision"
)

// GrantCaps is one way this principal could be issued a capability grant:
// the caps a2a/capabilities/request would apply. A grant may appear more
// than once when different policy rules cover different resources.
type GrantCaps struct {
	// ID is the grant id, for example documents:read.
	ID string `json:"id"`
	// Description is the grant's description from the agent's config.
	Description string `json:"description,omitempty"`
	// Operations is what could be issued: grant ∩ policy, never "*".
	Operations []string `json:"operations"`
	// Skills lists the agent's skills those operations allow, sorted.
	Skills []string `json:"skills,omitempty"`
	// Resources bounds the resources a capability could designate.
	Resources ResourceScope `json:"resources"`
	// MaxTTLSeconds is the longest lifetime a capability could get.
	MaxTTLSeconds int64 `json:"maxTtlSeconds"`
	// MaxDelegationDepth is how many hops it could be delegated (0: none).
	MaxDelegationDepth int `json:"maxDelegationDepth"`
	// Attenuable says whether it could be attenuated at all.
	Attenuable bool `json:"attenuable"`
	// Requires lists grants that must be requested in the same call.
	Requires []string `json:"requires,omitempty"`
	// NeedsApproval says that a request for it waits for a human
	// approver before anything is issued.
	NeedsApproval bool `json:"needsApproval,omitempty"`
}

// ResourceScope is a resource constraint as the principal may see it.
// Resources that deny rules exclude are never named: Restricted only says
// that some resources inside the scope are excluded.
type ResourceScope struct {
	// Any is true when the policy bounds no resource (other than
	// exclusions).
	Any bool `json:"any,omitempty"`
	// Collection, when set, is the only collection.
	Collection string `json:"collection,omitempty"`
	// Filter maps an attribute to its allowed values.
	Filter map[string][]string `json:"filter,omitempty"`
	// Restricted is true when deny rules exclude some resources inside.
	Restricted bool `json:"restricted,omitempty"`
}

// scopeOf turns a policy decision's resources into a ResourceScope,
// keeping only the existence of exclusions that may overlap the scope.
func scopeOf(gd policy.GrantDecision) ResourceScope {
	s := ResourceScope{Any: gd.Resource.IsZero(), Collection: gd.Resource.Collection}
	for k, v := range gd.Resource.Filter {
		if s.Filter == nil {
			s.Filter = make(map[string][]string, len(gd.Resource.Filter))
		}
		s.Filter[k] = slices.Clone(v)
	}
	for _, ex := range gd.Excluded {
		s.Restricted = s.Restricted || !disjoint(gd.Resource, ex)
	}
	return s
}

// disjoint reports whether no resource can match both a and b, judged on
// the constraints alone (false when unsure).
func disjoint(a, b policy.ResourceConstraint) bool {
	if a.Collection != "" && b.Collection != "" && a.Collection != b.Collection {
		return true
	}
	for k, av := range a.Filter {
		bv, ok := b.Filter[k]
		if ok && !slices.ContainsFunc(av, func(v string) bool { return slices.Contains(bv, v) }) {
			return true
		}
	}
	return false
}
