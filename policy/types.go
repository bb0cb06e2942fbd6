package policy

import "time"

// Principal is the authenticated caller as the gateway's authn step sees it.
type Principal struct {
	// ID is the principal id, for example user:alice@example.com.
	ID string `json:"id"`
	// Issuer is the token issuer (OIDC iss) or "dev" for dev API keys.
	Issuer string `json:"issuer,omitempty"`
	// Groups lists the principal's groups.
	Groups []string `json:"groups,omitempty"`
	// Claims holds further token claims (strings, numbers, booleans, lists).
	Claims map[string]any `json:"claims,omitempty"`
}

// ResourceQuery is the SEP resourceQuery of a capability request.
type ResourceQuery struct {
	// Collection names the collection, for example reports.
	Collection string `json:"collection,omitempty"`
	// Filter pins attributes to single values, for example quarter=2025-Q1.
	Filter map[string]string `json:"filter,omitempty"`
}

// Input is one a2a/capabilities/request as policy sees it.
type Input struct {
	// Principal is the caller.
	Principal Principal `json:"principal"`
	// Agent is the audience agent.
	Agent string `json:"agent"`
	// Grants lists the requested grant ids.
	Grants []string `json:"grants"`
	// Operations optionally narrows the requested operations; empty means
	// whatever the grant and the policy allow.
	Operations []string `json:"operations,omitempty"`
	// Resource is the optional resourceQuery.
	Resource *ResourceQuery `json:"resource,omitempty"`
	// Purpose is the caller's stated purpose.
	Purpose string `json:"purpose,omitempty"`
	// Expires is the requested expiry; zero means not asked.
	Expires time.Time `json:"expires,omitzero"`
	// MaxTTL is the gateway's own ceiling on a capability's life, applied
	// on top of every rule's max_ttl; zero means none.
	MaxTTL time.Duration `json:"maxTTL,omitzero"`
	// Now is the decision time (the gateway's injected clock).
	Now time.Time `json:"now"`
}

// Effect is a rule's effect.
type Effect string

// Rule effects.
const (
	// EffectAllow issues (or, for A2E and ambient rules, permits).
	EffectAllow Effect = "allow"
	// EffectDeny removes; deny rules win over allow rules.
	EffectDeny Effect = "deny"
)

// RuleRef identifies a rule that took part in a decision.
type RuleRef struct {
	// ID is the rule id.
	ID string `json:"id"`
	// Effect is allow or deny.
	Effect Effect `json:"effect"`
	// Pos is file:line:col of the rule in the policy file.
	Pos string `json:"pos"`
}

// Reason parts: what a Reason is about. They are stable words, suitable for
// JSON-RPC error data and audit records.
const (
	PartAgent      = "agent"      // the agent is unknown, or not reachable this way
	PartGrant      = "grant"      // the grant is unknown or not requested
	PartPrincipal  = "principal"  // the principal does not match
	PartOperations = "operations" // operations were narrowed or none is left
	PartResource   = "resource"   // resources were narrowed or are disjoint
	PartExpires    = "expires"    // the expiry was set, capped or refused
	PartDepth      = "depth"      // the delegation depth cap
	PartRequires   = "requires"   // a required grant is not issued
	PartPurpose    = "purpose"    // a rule needs a stated purpose
	PartCondition  = "condition"  // a CEL condition was false or failed
	PartDeny       = "deny"       // a deny rule removed something
	PartDefault    = "default"    // no allow rule matched: default deny
	PartContext    = "context"    // the decision could not run (clock, context)
	PartSkill      = "skill"      // ambient calls: the skill or method
	PartCapability = "capability" // A2E capabilities
	PartApproval   = "approval"   // the grant waits for human approval
)

// Reason is one human-readable step of a decision: a narrowing, a skipped
// rule that almost matched, or why something was denied.
type Reason struct {
	// Rule is the rule id, empty for default deny and catalog reasons.
	Rule string `json:"rule,omitempty"`
	// Grant is the grant concerned, if any.
	Grant string `json:"grant,omitempty"`
	// Part is one of the Part* constants.
	Part string `json:"part"`
	// Text is the explanation for humans (and for JSON-RPC error data).
	Text string `json:"text"`
}

// Decision is the outcome of Decide or DecideAmbient. A denial is a
// Decision with Allow false; it is never an error.
type Decision struct {
	// Allow is true when at least one grant is issued (Decide) or the ambient
	// call is permitted (DecideAmbient).
	Allow bool `json:"allow"`
	// Revision is the revision of the policy that decided.
	Revision string `json:"revision"`
	// Grants lists what may be issued, one entry per issued grant, in request
	// order. Denied grants are absent and explained in Reasons.
	Grants []GrantDecision `json:"grants,omitempty"`
	// Matched lists the rules that took effect (allow and deny), in order.
	Matched []RuleRef `json:"matched,omitempty"`
	// Reasons lists every narrowing and denial.
	Reasons []Reason `json:"reasons,omitempty"`
}

// GrantDecision is the intersection, for one grant, of what the grant
// permits, what the caller asked for and what the policy allows.
type GrantDecision struct {
	// Grant is the grant id.
	Grant string `json:"grant"`
	// Rule is the id of the allow rule that issued it.
	Rule string `json:"rule"`
	// Operations is grant ∩ request ∩ rule minus denied operations; never
	// empty and never "*".
	Operations []string `json:"operations"`
	// Resource bounds the resources the capability may designate. A zero
	// constraint means any resource of the agent.
	Resource ResourceConstraint `json:"resource"`
	// Excluded lists resources removed by deny rules.
	Excluded []ResourceConstraint `json:"excluded,omitempty"`
	// Expires is min(requested expiry, Now + rule max_ttl).
	Expires time.Time `json:"expires"`
	// MaxDepth is the rule's max_delegation_depth (0: no delegation).
	MaxDepth int `json:"maxDepth"`
	// Attenuable copies the grant's attenuable flag.
	Attenuable bool `json:"attenuable"`
	// Approval, when set, means the grant is issued only once one of its
	// approvers approves it (see Decision.NeedsApproval).
	Approval *Approval `json:"approval,omitempty"`
}

// A2EInput is one A2E handshake/req as policy sees it.
type A2EInput struct {
	// Principal is the authenticated agent or user behind auth_token.
	Principal Principal `json:"principal"`
	// Host is the A2E host name.
	Host string `json:"host"`
	// Capabilities is agent_caps.
	Capabilities []string `json:"capabilities"`
	// Now is the decision time.
	Now time.Time `json:"now"`
}

// A2EDecision says which requested A2E capabilities the policy lets the
// caller negotiate. The host still decides among the allowed ones.
type A2EDecision struct {
	// Revision is the revision of the policy that decided.
	Revision string `json:"revision"`
	// Allowed lists the permitted capabilities, in request order.
	Allowed []string `json:"allowed,omitempty"`
	// Denied maps each refused capability to the reason.
	Denied map[string]string `json:"denied,omitempty"`
	// Matched lists the rules that took effect.
	Matched []RuleRef `json:"matched,omitempty"`
}

// AmbientInput is a call without a capability to a legacy agent.
type AmbientInput struct {
	// Principal is the caller.
	Principal Principal `json:"principal"`
	// Agent is the legacy agent.
	Agent string `json:"agent"`
	// Skill is the invoked skill, empty when the method names none.
	Skill string `json:"skill,omitempty"`
	// Method is the JSON-RPC method, for example message/send.
	Method string `json:"method"`
	// Now is the decision time.
	Now time.Time `json:"now"`
}
