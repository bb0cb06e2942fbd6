package a2afront

import (
	"context"
	"encoding/json"
	"time"

	"github.com/capgate/capgate/gateway/a2atasks"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Task ownership (package a2atasks): a follow-up on a task is allowed
// only to the principal that started it (taskGate, before the call is
// decided further), and the front learns owners from the answers that
// name tasks (taskAnswer, the first answer processor).

// Defaults of the in-memory task index.
const (
	DefaultMaxTasks = 100_000
	DefaultTaskTTL  = 24 * time.Hour
)

// taskCall is what task ownership reads of c.
func taskCall(c *call) a2atasks.Call {
	return a2atasks.Call{
		Target: c.agent.cfg.Name, Mode: c.agent.cfg.TaskOwnership, Principal: c.principal.ID,
		Method: c.req.Method, Canonical: c.canonical, Params: c.req.Params,
	}
}

// taskGate checks the tasks a call names before it is decided further.
func (f *Front) taskGate(ctx context.Context, c *call) *jsonrpc.Error {
	if c.req.Err != nil {
		return nil
	}
	return f.tasks.Gate(ctx, taskCall(c))
}

// taskAnswer is the answer processor of task ownership.
func (f *Front) taskAnswer(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	return f.tasks.Answer(ctx, taskCall(c), resp)
}
