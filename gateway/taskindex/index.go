package taskindex

import (
	"context"
	"errors"
)

// ErrUnavailable is wrapped when the index cannot be reached or holds a
// record it cannot read.
var ErrUnavailable = errors.New("taskindex: index unavailable")

// Index maps an agent's task ids to the principal that started them.
type Index interface {
	// Claim binds each of tasks, at agent, to owner unless it is already
	// bound, and returns, in order, the owner each task is bound to after
	// the call: owner itself, or the principal that claimed it first. A
	// binding to owner is kept alive for another TTL.
	Claim(ctx context.Context, agent, owner string, tasks []string) ([]string, error)
	// Owners returns, in order, the owner of each of tasks at agent, or ""
	// for a task the index does not know.
	Owners(ctx context.Context, agent string, tasks []string) ([]string, error)
}
