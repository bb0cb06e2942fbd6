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

// Tree drawing geometry, in SVG user units.
const (
	boxW, boxH = 250, 64
	colW, rowH = 280, 80
	pad        = 8
)

// node is one capability in a delegation tree, as drawn: holder,
// operations, depth, expiry and state, never the token.
type node struct {
	ID         string
	Principal  string
	Holder     string
	Agent      string
	Grant      string
	Operations string
	Resources  string
	Depth      int
	Expires    time.Time
	State      string // live, revoked, invalid or unknown
	parent     string
	children   []*node
	// X, Y place the box; an edge runs from the parent's PX, PY down to
	// MidY, the box's middle, then right to the box.
	X, Y, PX, PY, MidY int
	HasParent          bool
}

// tree is one root capability and its descendants, laid out for SVG.
type tree struct {
	Root          *node
	Nodes         []*node
	Width, Height int
}

// describe turns an index record into a node, reading the token's claims
// only after it verifies and asking the revocation store for its state.
func (c *Console) describe(ctx context.Context, rec capindex.Record) *node {
	n := &node{ID: rec.CapabilityID, Principal: rec.Principal, Holder: rec.Holder, Agent: rec.Agent,
		Grant: rec.Grant, Expires: rec.Expires, parent: rec.ParentID, State: "invalid"}
	names := slices.Clone(rec.DisplayNames)
	slices.Sort(names)
	n.Resources = strings.Join(names, ", ")
	claims, err := c.deps.Verifier.VerifyPacked(ctx, rec.Token, captoken.Expected{})
	if err != nil {
		return n
	}
	n.Operations, n.Depth = strings.Join(claims.Operations, " "), claims.Depth
	res, err := c.deps.Revocations.Check(ctx, revocation.Query{IDs: claims.RevocationIDs(),
		Principal: claims.Principal, IssuedAt: claims.IssuedAt.Time()})
	switch {
	case err != nil:
		n.State = "unknown"
	case res.Revoked:
		n.State = "revoked"
	default:
		n.State = "live"
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

// layout places a root's tree: one row per node in depth-first order, one
// column per generation.
func layout(root *node) tree {
	t := tree{Root: root}
	var walk func(n *node, gen int, parent *node)
	walk = func(n *node, gen int, parent *node) {
		n.X, n.Y = pad+gen*colW, pad+len(t.Nodes)*rowH
		n.MidY = n.Y + boxH/2
		if parent != nil {
			n.HasParent, n.PX, n.PY = true, parent.X+20, parent.Y+boxH
		}
		t.Nodes = append(t.Nodes, n)
		t.Width = max(t.Width, n.X+boxW+pad)
		for _, ch := range n.children {
			walk(ch, gen+1, n)
		}
	}
	walk(root, 0, nil)
	t.Height = pad + len(t.Nodes)*rowH
	return t
}

// descendants counts the capabilities below n.
func descendants(n *node) int {
	total := 0
	for _, ch := range n.children {
		total += 1 + descendants(ch)
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
