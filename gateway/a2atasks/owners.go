package a2atasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/taskindex"
)

// CodeTaskNotFound is A2A's TaskNotFoundError.
const CodeTaskNotFound = -32001

// taskNotFound is the refusal of a task the caller does not own: the
// agent's own answer for a task that does not exist.
func taskNotFound() *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeTaskNotFound, Message: "Task not found"}
}

// taskStoreUnavailable refuses a call whose task owner cannot be read or
// written: fail closed, naming the task index.
func taskStoreUnavailable() *jsonrpc.Error {
	r := enforce.Unavailable(enforce.TaskIndex, "")
	return &jsonrpc.Error{Code: jsonrpc.CodeOf(string(r.Reason)), Message: r.Message, Data: r.Members()}
}

// Owners decides who may touch a task: it learns each task's owner from
// the answers that name it and checks every call that names one.
type Owners struct {
	index  taskindex.Index
	logger *slog.Logger
}

// New returns the ownership of the tasks recorded in index; logger (nil
// discards) receives store failures and refused answers.
func New(index taskindex.Index, logger *slog.Logger) *Owners {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Owners{index: index, logger: logger}
}

// Call is what ownership reads of one call.
type Call struct {
	// Target is the agent the call is addressed to.
	Target string
	// Mode is the agent's task_ownership setting ("" is enforce).
	Mode string
	// Principal is the caller, who owns the tasks its calls start.
	Principal string
	// Method is the method as the caller wrote it; Canonical its v1.0
	// name.
	Method, Canonical string
	// Params are the call's params.
	Params json.RawMessage
}

func (c Call) mode() string {
	if c.Mode == "" {
		return config.TaskOwnershipEnforce
	}
	return c.Mode
}

// ownerCheck refuses, as "task not found", a principal that does not own
// every one of tasks. A task never learned is refused too, unless the
// agent allows unknown tasks or unknown is true (a task id the caller may
// choose for a new task).
func (o *Owners) ownerCheck(ctx context.Context, c Call, unknown bool, tasks ...string) *jsonrpc.Error {
	if len(tasks) == 0 {
		return nil
	}
	owners, err := o.index.Owners(ctx, c.Target, tasks)
	if err != nil {
		o.logger.ErrorContext(ctx, "task index unavailable", "error", err)
		return taskStoreUnavailable()
	}
	unknown = unknown || c.mode() == config.TaskOwnershipAllowUnknown
	for _, owner := range owners {
		if owner != c.Principal && (owner != "" || !unknown) {
			return taskNotFound()
		}
	}
	return nil
}

// Gate checks the tasks a call names before it is decided further:
// follow-ups must name only the caller's tasks; a send may continue or
// reference only the caller's tasks. Listing is filtered on the way back
// (Answer).
func (o *Owners) Gate(ctx context.Context, c Call) *jsonrpc.Error {
	if c.mode() == config.TaskOwnershipOff {
		return nil
	}
	switch {
	case NamesTask(c.Canonical):
		tasks, e := followUpTasks(c.Method, c.Canonical, c.Params)
		if e != nil {
			return e
		}
		return o.ownerCheck(ctx, c, false, tasks...)
	case c.Canonical == jsonrpc.MethodSendMessage || c.Canonical == jsonrpc.MethodSendStreamingMessage || c.Canonical == jsonrpc.MethodTaskSend:
		named, chosen, e := sendTasks(c.Method, c.Params)
		if e != nil {
			return e
		}
		if e := o.ownerCheck(ctx, c, false, named...); e != nil {
			return e
		}
		return o.ownerCheck(ctx, c, true, chosen...)
	}
	return nil
}

// NamesTask reports whether canonical is a follow-up call on one existing
// task: get, cancel, resubscribe and the push-notification configs.
func NamesTask(canonical string) bool {
	switch canonical {
	case jsonrpc.MethodGetTask, jsonrpc.MethodCancelTask, jsonrpc.MethodSubscribeToTask,
		jsonrpc.MethodSetTaskPushNotificationConfig, jsonrpc.MethodGetTaskPushNotificationConfig,
		jsonrpc.MethodListTaskPushNotificationConfig, jsonrpc.MethodDeleteTaskPushNotificationConfig:
		return true
	}
	return false
}

// Answer is the answer processor of task ownership. An answer to a
// listing keeps only the caller's tasks; any other answer binds the tasks
// it names to the caller, and is refused as "task not found" when one of
// them is another principal's.
func (o *Owners) Answer(ctx context.Context, c Call, resp json.RawMessage) (json.RawMessage, error) {
	if c.mode() == config.TaskOwnershipOff {
		return resp, nil
	}
	if c.Canonical == jsonrpc.MethodListTasks {
		return o.listAnswer(ctx, c, resp)
	}
	tasks, err := answerTaskIDs(resp, answer.LayoutOf(ctx, resp))
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return resp, nil
	}
	owners, err := o.index.Claim(ctx, c.Target, c.Principal, tasks)
	if err != nil {
		o.logger.ErrorContext(ctx, "task index unavailable", "error", err)
		return nil, taskStoreUnavailable()
	}
	for i, owner := range owners {
		if owner != c.Principal {
			o.logger.WarnContext(ctx, "upstream answered with another principal's task; refused",
				"agent", c.Target, "task", tasks[i])
			return nil, taskNotFound()
		}
	}
	return resp, nil
}

// listAnswer keeps, of an answer to a listing, only the caller's tasks.
func (o *Owners) listAnswer(ctx context.Context, c Call, resp json.RawMessage) (json.RawMessage, error) {
	var env map[string]json.RawMessage
	if json.Unmarshal(resp, &env) != nil {
		return nil, answer.ErrNotJSON
	}
	result, ok := env["result"]
	if !ok {
		return resp, nil
	}
	kept, err := o.ownTasksOnly(ctx, c, result)
	if err != nil {
		return nil, err
	}
	env["result"] = kept
	return json.Marshal(env)
}

// ownTasksOnly filters a listing's result to the caller's tasks. The
// total it reports, if any, becomes the number kept, so that the others'
// tasks are not even counted.
func (o *Owners) ownTasksOnly(ctx context.Context, c Call, result json.RawMessage) (json.RawMessage, error) {
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
	owners, err := o.index.Owners(ctx, c.Target, ids)
	if err != nil {
		o.logger.ErrorContext(ctx, "task index unavailable", "error", err)
		return nil, taskStoreUnavailable()
	}
	kept := []json.RawMessage{}
	for i, t := range all {
		if ids[i] != "" && owners[i] == c.Principal {
			kept = append(kept, t)
		}
	}
	list[tasksKey] = mustJSON(kept)
	for _, k := range totalKeys {
		list[k] = mustJSON(len(kept))
	}
	return json.Marshal(list)
}

// mustJSON encodes a value that always encodes.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("a2atasks: " + err.Error())
	}
	return b
}

// listingKeys finds a listing's tasks and its totals as LenientName reads
// names, as clients do ("Tasks", "total_size"). Two members a client could
// read as the tasks are refused (ok false); every total is rewritten.
func listingKeys(list map[string]json.RawMessage) (tasksKey string, totalKeys []string, ok bool) {
	tasksKey = "tasks"
	found := 0
	for k := range list {
		switch {
		case jsonrpc.LenientName(k, "tasks"):
			tasksKey, found = k, found+1
		case jsonrpc.LenientName(k, "totalSize"):
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
