package a2efront

import (
	"context"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/freeze"
)

// frozenRefusal refuses a message of a session whose host or principal
// an operator froze (package freeze): capability_missing, saying what is
// frozen; a freeze list that cannot answer refuses as unavailable
// (retryable). ok is true when the message may proceed.
func (f *Front) frozenRefusal(ctx context.Context, c *call) (outcome, bool) {
	e, err := f.frozen(ctx, c)
	switch {
	case err != nil:
		f.deps.Logger.Warn("a2efront: freeze list unavailable; refusing the message", "error", err)
		return f.unavailable(ctx, c), false
	case e != nil:
		return f.refuse(ctx, c, a2e.CodeCapabilityMissing, "", false,
			"the "+string(e.Kind)+" "+e.Name+" is frozen by an operator"), false
	}
	return outcome{}, true
}

// frozen returns the entry that freezes the call's host or its session's
// principal, nil when neither is frozen.
func (f *Front) frozen(ctx context.Context, c *call) (*freeze.Entry, error) {
	if f.deps.Frozen == nil {
		return nil, nil
	}
	return f.deps.Frozen.Check(ctx, c.host.Name, c.sess.Principal)
}
