package sep

// MaxResolveAnswerBytes bounds an agent's whole JSON-RPC answer to
// a2a/resources/resolve; the gateway refuses a larger one.
const MaxResolveAnswerBytes = 1 << 20

// ResolveParams are the params of a2a/resources/resolve, the resolution
// hook: the gateway asks an agent which of its resources match the
// resourceQuery of a capability request, before it mints handles for
// them. The agent answers with a [ResolveResult].
type ResolveParams struct {
	// Principal is the user principal the request is for, e.g.
	// "user:alice@example.com". It is informative: the gateway applies
	// policy to the answer, whoever the agent says it is for.
	Principal string `json:"principal,omitempty"`
	// Collection is the collection asked for; "" means every collection.
	Collection string `json:"collection,omitempty"`
	// Filter holds attribute = value conditions that must all match
	// exactly; a resource without the attribute does not match.
	Filter map[string]string `json:"filter,omitempty"`
}

// Query returns the resourceQuery the params carry.
func (p ResolveParams) Query() ResourceQuery {
	return ResourceQuery{Collection: p.Collection, Filter: p.Filter}
}

// Resource is one resource an agent names in its answer to
// a2a/resources/resolve. Its ID never reaches the caller: the gateway
// hands out an opaque handle with the DisplayName instead, and puts the
// ID back only on its way to the agent.
type Resource struct {
	// ID is the agent's own id for the resource, e.g.
	// "reports/q1-financial". Required, and unique in one answer.
	ID string `json:"id"`
	// Collection is the resource's collection, e.g. "reports".
	Collection string `json:"collection"`
	// DisplayName is the title the caller sees next to the handle.
	DisplayName string `json:"displayName"`
	// Attributes are the resource's filterable attributes, e.g.
	// quarter: 2025-Q1. Policy rules may match on them.
	Attributes map[string]string `json:"attributes"`
}

// ResolveResult is the result of a2a/resources/resolve. The gateway keeps
// only the resources that match the query and the policy, so an answer
// too broad cannot widen a capability.
type ResolveResult struct {
	// Resources are the matching resources; never null on the wire.
	Resources []Resource `json:"resources"`
}
