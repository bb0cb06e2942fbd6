package a2afront

import (
	"encoding/json"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Where calls and answers name tasks. Member names are matched without
// regard to case, and protobuf's snake_case spellings too, because agents
// built on encoding/json or protojson accept them: a task named in any
// spelling an agent would read is checked.

// members returns the members of a JSON object, or ok false when raw is
// not one.
func members(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// lookup returns the values of every member of m whose name is one of
// names as nameIs reads it.
func lookup(m map[string]json.RawMessage, names ...string) []json.RawMessage {
	var out []json.RawMessage
	for k, v := range m {
		for _, n := range names {
			if nameIs(k, n) {
				out = append(out, v)
			}
		}
	}
	return out
}

// nameIs reports whether the member name k is name as the readers the
// gateway must agree with read it: without underscores or dashes (as
// protojson's field names and case-insensitive matchers that ignore
// separators do) and under Unicode case folding (encoding/json's, where
// "taſkId" is "taskId"). Reading more spellings as a name the gateway
// checks only ever checks more. foldedIs is its fast path for plain keys.
func nameIs(k, name string) bool {
	if strings.ContainsAny(k, "_-") {
		k = strings.NewReplacer("_", "", "-", "").Replace(k)
	}
	return strings.EqualFold(k, name)
}

// strs decodes each value as a string; null is no value.
func strs(vals []json.RawMessage) ([]string, bool) {
	var out []string
	for _, v := range vals {
		if string(v) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func badTaskParams(msg string) *jsonrpc.Error {
	return capErr(jsonrpc.CodeInvalidParams, msg, nil)
}

// followUpTasks returns every task a follow-up call names: its task id
// ("id", except in the v1.0 push-config calls where "id" is the config's),
// "taskId", and resource names ("name", "parent": tasks/{id}/...). A call
// that names no task is refused.
func followUpTasks(method, canonical string, params json.RawMessage) ([]string, *jsonrpc.Error) {
	m, ok := members(params)
	if !ok {
		return nil, badTaskParams("params must be an object naming a task")
	}
	names := []string{"taskid"}
	if !isPushConfig(canonical) || strings.Contains(method, "/") {
		names = append(names, "id")
	}
	tasks, ok := strs(lookup(m, names...))
	if !ok {
		return nil, badTaskParams("a task id must be a string")
	}
	paths, ok := strs(lookup(m, "name", "parent"))
	if !ok {
		return nil, badTaskParams("a task name must be a string")
	}
	for _, p := range paths {
		id, ok := taskPath(p)
		if !ok {
			return nil, badTaskParams("a task name must be tasks/{id}")
		}
		tasks = append(tasks, id)
	}
	if len(tasks) == 0 {
		return nil, badTaskParams("the call must name a task")
	}
	return tasks, nil
}

func isPushConfig(canonical string) bool {
	return strings.Contains(canonical, "PushNotificationConfig")
}

// sendTasks returns the tasks a send names: named are the tasks its
// message continues or references (message.taskId,
// message.referenceTaskIds), which must exist; chosen is the id a v0.1
// tasks/send gives the task it starts or continues (params.id), which may
// be new.
func sendTasks(method string, params json.RawMessage) (named, chosen []string, e *jsonrpc.Error) {
	m, ok := members(params)
	if !ok {
		return nil, nil, nil // the send's own checks refuse it
	}
	if strings.HasPrefix(method, "tasks/") {
		if chosen, ok = strs(lookup(m, "id")); !ok {
			return nil, nil, badTaskParams("a task id must be a string")
		}
	}
	for _, raw := range lookup(m, "message", "request") {
		msg, ok := members(raw)
		if !ok {
			continue
		}
		ids, ok := strs(lookup(msg, "taskid"))
		if !ok {
			return nil, nil, badTaskParams("message.taskId must be a string")
		}
		named = append(named, ids...)
		for _, refs := range lookup(msg, "referencetaskids") {
			var list []json.RawMessage
			if string(refs) != "null" && json.Unmarshal(refs, &list) != nil {
				return nil, nil, badTaskParams("message.referenceTaskIds must list task ids")
			}
			ids, ok := strs(list)
			if !ok {
				return nil, nil, badTaskParams("message.referenceTaskIds must list task ids")
			}
			named = append(named, ids...)
		}
	}
	return named, chosen, nil
}

// wrappers are the members under which a v1.0 answer or stream event
// wraps what it carries.
var wrappers = []string{"task", "message", "statusupdate", "artifactupdate"}

// answerTasks returns the tasks an answer's result names, looking only
// where A2A puts them: a Task's id, the taskId of a message or an update
// event, at the top or under a v1.0 wrapper. Ids deeper inside (in a
// message's parts, say) are content, not the agent's word on a task.
func answerTasks(result json.RawMessage) []string {
	m, ok := members(result)
	if !ok {
		return nil
	}
	tasks := objectTasks(m)
	for _, raw := range lookup(m, wrappers...) {
		if inner, ok := members(raw); ok {
			tasks = append(tasks, objectTasks(inner)...)
		}
	}
	return tasks
}

// objectTasks returns the tasks one object names itself.
func objectTasks(m map[string]json.RawMessage) []string {
	var out []string
	ids, _ := strs(lookup(m, "taskid"))
	out = append(out, ids...)
	if isTask(m) {
		ids, _ := strs(lookup(m, "id"))
		out = append(out, ids...)
	}
	var nonEmpty []string
	for _, id := range out {
		if id != "" {
			nonEmpty = append(nonEmpty, id)
		}
	}
	return nonEmpty
}

// isTask reports whether an object is a Task: kind "task", or a status.
func isTask(m map[string]json.RawMessage) bool {
	kinds, _ := strs(lookup(m, "kind"))
	for _, k := range kinds {
		if k == "task" {
			return true
		}
	}
	return len(lookup(m, "status")) > 0
}

// taskObjectID is the id of a Task object in a listing, or "".
func taskObjectID(raw json.RawMessage) string {
	m, ok := members(raw)
	if !ok {
		return ""
	}
	ids, ok := strs(lookup(m, "id"))
	if !ok || len(ids) != 1 {
		return ""
	}
	return ids[0]
}
