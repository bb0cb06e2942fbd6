package a2afront

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Task ownership. A task belongs to the principal whose call the agent
// answered with it: the caller authenticated on that call (for a
// delegated capability, its holder, the receiving agent's own identity).
// The front learns owners only from upstream answers (taskAnswer) and
// allows a follow-up call on a task only to its owner (taskGate); anyone
// else is told the task does not exist, exactly as the agent would say it,
// and the agent sees nothing.

// Defaults of the in-memory task index.
const (
	DefaultMaxTasks = 100_000
	DefaultTaskTTL  = 24 * time.Hour
)

// codeTaskNotFound is A2A's TaskNotFoundError.
const codeTaskNotFound = -32001

// taskNotFound is the refusal of a task the caller does not own: the
// agent's own answer for a task that does not exist.
func taskNotFound() *jsonrpc.Error {
	return &jsonrpc.Error{Code: codeTaskNotFound, Message: "Task not found"}
}

// taskStoreUnavailable refuses a call whose task owner cannot be read or
// written: fail closed.
func taskStoreUnavailable() *jsonrpc.Error {
	return capErr(jsonrpc.CodeRevocationUnavailable, "task ownership store unavailable; try again", nil)
}

// ownership is an agent's task-ownership mode.
func ownership(a *agent) string {
	if a.cfg.TaskOwnership == "" {
		return config.TaskOwnershipEnforce
	}
	return a.cfg.TaskOwnership
}

// ownerCheck refuses, as "task not found", a principal that does not own
// every one of tasks at a. A task the front never learned is refused too,
// unless the agent allows unknown tasks or unknown is true (a task id the
// caller may choose for a new task).
func (f *Front) ownerCheck(ctx context.Context, a *agent, principal string, unknown bool, tasks ...string) *jsonrpc.Error {
	if len(tasks) == 0 {
		return nil
	}
	owners, err := f.deps.Tasks.Owners(ctx, a.cfg.Name, tasks)
	if err != nil {
		f.deps.Logger.ErrorContext(ctx, "task index unavailable", "error", err)
		return taskStoreUnavailable()
	}
	unknown = unknown || ownership(a) == config.TaskOwnershipAllowUnknown
	for _, o := range owners {
		if o != principal && (o != "" || !unknown) {
			return taskNotFound()
		}
	}
	return nil
}

// taskGate checks the tasks a call names before it is decided further:
// follow-ups must name only the caller's tasks; a send may continue or
// reference only the caller's tasks. Listing is filtered on the way back.
func (f *Front) taskGate(ctx context.Context, c *call) *jsonrpc.Error {
	if ownership(c.agent) == config.TaskOwnershipOff || c.req.Err != nil {
		return nil
	}
	switch {
	case namesTask(c.canonical):
		tasks, e := followUpTasks(c.req.Method, c.canonical, c.req.Params)
		if e != nil {
			return e
		}
		return f.ownerCheck(ctx, c.agent, c.principal.ID, false, tasks...)
	case c.canonical == jsonrpc.MethodSendMessage || c.canonical == jsonrpc.MethodSendStreamingMessage || c.canonical == jsonrpc.MethodTaskSend:
		named, chosen, e := sendTasks(c.req.Method, c.req.Params)
		if e != nil {
			return e
		}
		if e := f.ownerCheck(ctx, c.agent, c.principal.ID, false, named...); e != nil {
			return e
		}
		return f.ownerCheck(ctx, c.agent, c.principal.ID, true, chosen...)
	}
	return nil
}

// namesTask reports whether canonical is a follow-up call on one existing
// task: get, cancel, resubscribe and the push-notification configs.
func namesTask(canonical string) bool {
	switch canonical {
	case jsonrpc.MethodGetTask, jsonrpc.MethodCancelTask, jsonrpc.MethodSubscribeToTask,
		jsonrpc.MethodSetTaskPushNotificationConfig, jsonrpc.MethodGetTaskPushNotificationConfig,
		jsonrpc.MethodListTaskPushNotificationConfig, jsonrpc.MethodDeleteTaskPushNotificationConfig:
		return true
	}
	return false
}

// taskAnswer is the answer processor of task ownership. An answer to a
// listing keeps only the caller's tasks; any other answer binds the tasks
// it names to the caller, and is refused as "task not found" when one of
// them is another principal's.
func (f *Front) taskAnswer(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if ownership(c.agent) == config.TaskOwnershipOff {
		return resp, nil
	}
	if c.canonical == jsonrpc.MethodListTasks {
		return f.listAnswer(ctx, c, resp)
	}
	tasks, err := answerTaskIDs(resp)
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return resp, nil
	}
	owners, err := f.deps.Tasks.Claim(ctx, c.agent.cfg.Name, c.principal.ID, tasks)
	if err != nil {
		f.deps.Logger.ErrorContext(ctx, "task index unavailable", "error", err)
		return nil, taskStoreUnavailable()
	}
	for i, o := range owners {
		if o != c.principal.ID {
			f.deps.Logger.WarnContext(ctx, "upstream answered with another principal's task; refused",
				"agent", c.agent.cfg.Name, "task", tasks[i])
			return nil, taskNotFound()
		}
	}
	return resp, nil
}

// listAnswer keeps, of an answer to a listing, only the caller's tasks.
func (f *Front) listAnswer(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	var env map[string]json.RawMessage
	if json.Unmarshal(resp, &env) != nil {
		return nil, answer.ErrNotJSON
	}
	result, ok := env["result"]
	if !ok {
		return resp, nil
	}
	kept, err := f.ownTasksOnly(ctx, c, result)
	if err != nil {
		return nil, err
	}
	env["result"] = kept
	return json.Marshal(env)
}

// ownTasksOnly filters a listing's result to the caller's tasks. The
// total it reports, if any, becomes the number kept, so that the others'
// tasks are not even counted.
func (f *Front) ownTasksOnly(ctx context.Context, c *call, result json.RawMessage) (json.RawMessage, error) {
	var list map[string]json.RawMessage
	if json.Unmarshal(result, &list) != nil || list == nil { // null is no listing
		return nil, answer.ErrNotJSON
	}
	tasksKey, totalKeys, ok := listingKeys(list)
	if !ok {
		return nil, answer.ErrNotJSON
	}
	var all []json.RawMessage
	if raw, ok := list[tasksKey]; ok && json.Unmarshal(raw, &all) != nil {
		return nil, answer.ErrNotJSON
	}
	ids := make([]string, len(all))
	for i, t := range all {
		ids[i] = taskObjectID(t)
	}
	owners, err := f.deps.Tasks.Owners(ctx, c.agent.cfg.Name, ids)
	if err != nil {
		f.deps.Logger.ErrorContext(ctx, "task index unavailable", "error", err)
		return nil, taskStoreUnavailable()
	}
	kept := []json.RawMessage{}
	for i, t := range all {
		if ids[i] != "" && owners[i] == c.principal.ID {
			kept = append(kept, t)
		}
	}
	list[tasksKey] = encodeJSON(kept)
	for _, k := range totalKeys {
		list[k] = encodeJSON(len(kept))
	}
	return json.Marshal(list)
}

// listingKeys finds a listing's tasks and its totals as nameIs reads
// names, as clients do ("Tasks", "total_size"). Two members a client could
// read as the tasks are refused (ok false); every total is rewritten.
func listingKeys(list map[string]json.RawMessage) (tasksKey string, totalKeys []string, ok bool) {
	tasksKey = "tasks"
	found := 0
	for k := range list {
		switch {
		case nameIs(k, "tasks"):
			tasksKey, found = k, found+1
		case nameIs(k, "totalSize"):
			totalKeys = append(totalKeys, k)
		}
	}
	return tasksKey, totalKeys, found <= 1
}

// taskPath returns the task id of a resource name "tasks/{id}" or
// "tasks/{id}/...".
func taskPath(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "tasks/")
	if !ok {
		return "", false
	}
	id, _, _ := strings.Cut(rest, "/")
	return id, id != ""
}
