package a2afront

import "context"

// haltFrozen is the halt of c's stream (answer.Call.Halt): once an
// operator freezes the agent, the caller, or the principal or holder of
// the capability the call acts under, the stream's next event is replaced
// by the frozen refusal a new call gets (notFrozen) and the stream ends,
// capability or not. The freeze set answers from this replica's memory,
// so the check costs no round trip per event; a set that cannot answer
// ends the stream as unavailable, closed.
func (f *Front) haltFrozen(c *call) func(context.Context) error {
	return func(ctx context.Context) error {
		if e := f.notFrozen(ctx, c); e != nil {
			return e
		}
		if c.scope == nil || c.scope.Claims == nil {
			return nil
		}
		cl := c.scope.Claims
		if r := f.checks.NotFrozen(ctx, cl.Audience, cl.Principal, cl.Holder); r != nil {
			return wireError(r)
		}
		return nil
	}
}
