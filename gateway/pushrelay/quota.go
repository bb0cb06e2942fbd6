package pushrelay

import (
	"errors"
	"fmt"
)

// ErrPrincipalFull means the principal setting a config already holds as
// many relayed configs as one principal may: the set is refused until
// one of them is deleted or expires. A *PrincipalFullError carries it.
var ErrPrincipalFull = errors.New("pushrelay: the principal holds too many relayed push configs")

// PrincipalFullError is the refusal of a config whose owner holds Limit
// relayed configs already.
type PrincipalFullError struct {
	// Owner is the principal refused.
	Owner string
	// Limit is how many configs one principal may hold at once.
	Limit int
}

func (e *PrincipalFullError) Error() string {
	return fmt.Sprintf("pushrelay: principal %q holds %d relayed push configs, the most one principal may", e.Owner, e.Limit)
}

// Is reports whether target is ErrPrincipalFull.
func (e *PrincipalFullError) Is(target error) bool { return target == ErrPrincipalFull }

// slot is where a record is kept and whose it is: what a backend needs to
// store it, count it against its owner's bound and forget it.
type slot struct {
	agent, id, task, owner string
}

func slotOf(r Record) slot { return slot{agent: r.Agent, id: r.ID, task: r.Task, owner: r.Owner} }
