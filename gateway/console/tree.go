package console

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/revocation"
)

// Capability states as the console shows them.
const (
	stateLive    = "live"
	stateRevoked = "revoked"
	// stateInvalid is a record whose token does not verify: forged, or
	// signed by a key no longer held.
	stateInvalid = "invalid"
	// stateUnknown is a capability the revocation store could not answer
	// for: it may be live.
	stateUnknown = "unknown"
)

// node is one capability in a delegation tree, as shown: id, holder,
// purpose, operations, resources by display name, depth, expiry and
// state, never the token or a real resource id.
type node struct {
	ID         string
	Principal  string
	Holder     string
	Agent      string
	Grant      string
	Purpose    string
	Operations string
	Resources  string
	Depth      int
	MaxDepth   int
	Expires    time.Time
	State      string // one of the state* constants
	// Kind is "MCP" for a capability on an MCP server, "" for an A2A agent.
	Kind     string
	parent   string
	children []*node
}

// Children are the capabilities attenuated from n, in issue order.
func (n *node) Children() []*node { return n.children }

// Revocable says whether revoking n may still change something: it is
// live, or its state could not be read.
func (n *node) Revocable() bool { return n.State == stateLive || n.State == stateUnknown }

// describe turns an index record into a node, reading the token's claims
// only after it verifies and asking the revocation store for its state.
func (c *Console) describe(ctx context.Context, rec capindex.Record) *node {
	n := &node{ID: rec.CapabilityID, Principal: rec.Principal, Holder: rec.Holder, Agent: rec.Agent,
		Grant: rec.Grant, Expires: rec.Expires, parent: rec.ParentID, State: stateInvalid}
	if slices.Contains(c.cfg.MCPServers, rec.Agent) {
		n.Kind = "MCP"
	}
	names := slices.Clone(rec.DisplayNames)
	slices.Sort(names)
	n.Resources = strings.Join(slices.DeleteFunc(names, func(s string) bool { return s == "" }), ", ")
	if n.Resources == "" && len(rec.DisplayNames) > 0 {
		n.Resources = "unnamed resources"
	}
	claims, err := c.deps.Verifier.VerifyPacked(ctx, rec.Token, captoken.Expected{})
	if err != nil {
		return n
	}
	n.Operations, n.Depth, n.MaxDepth, n.Purpose = strings.Join(claims.Operations, " "), claims.Depth, claims.MaxDepth, claims.Purpose
	res, err := c.deps.Revocations.Check(ctx, revocation.Query{IDs: claims.RevocationIDs(),
		Principal: claims.Principal, IssuedAt: claims.IssuedAt.Time()})
	switch {
	case err != nil:
		n.State = stateUnknown
	case res.Revoked:
		n.State = stateRevoked
	default:
		n.State = stateLive
	}
	return n
}

// forest links nodes by parent id: a node whose parent is not listed is
// a root. Roots and children keep issue order.
func forest(nodes []*node) []*node {
	byID := make(map[string]*node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	var roots []*node
	for _, n := range nodes {
		if p, ok := byID[n.parent]; ok && n.parent != "" {
			p.children = append(p.children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// prune removes from the forest the capabilities that are no longer
// live (revoked, or expired at now) with everything below them, and
// returns what is left, how many nodes that is and how many it removed.
// A node whose state is unknown or invalid stays: it may be live, or it
// names a record someone should look at.
func prune(roots []*node, now time.Time) (kept []*node, shown, removed int) {
	for _, n := range roots {
		if n.State == stateRevoked || !now.Before(n.Expires) {
			removed += 1 + count(n.children)
			continue
		}
		var s, r int
		n.children, s, r = prune(n.children, now)
		kept, shown, removed = append(kept, n), shown+1+s, removed+r
	}
	return kept, shown, removed
}

// count counts the nodes of a forest.
func count(roots []*node) int {
	total := 0
	for _, n := range roots {
		total += 1 + count(n.children)
	}
	return total
}

// liveDescendants counts the capabilities below n that a revocation of n
// would end: a revoked one's subtree has ended already.
func liveDescendants(n *node) int {
	total := 0
	for _, ch := range n.children {
		if ch.State != stateRevoked {
			total += 1 + liveDescendants(ch)
		}
	}
	return total
}

// find returns the node with id in the forest, or nil.
func find(roots []*node, id string) *node {
	for _, n := range roots {
		if n.ID == id {
			return n
		}
		if f := find(n.children, id); f != nil {
			return f
		}
	}
	return nil
}
