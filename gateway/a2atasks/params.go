package a2atasks

import (
	"encoding/json"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

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

// badTaskParams is invalid_params naming in data.member the member at
// fault.
func badTaskParams(member, msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg,
		Data: map[string]any{"reason": jsonrpc.ReasonInvalidParams, "member": member}}
}

// followUpTasks returns every task a follow-up call names: its task id
// ("id", except in the v1.0 push-config calls where "id" is the config's),
// "taskId", and resource names ("name", "parent": tasks/{id}/...). A call
// that names no task is refused.
func followUpTasks(method, canonical string, params json.RawMessage) ([]string, *jsonrpc.Error) {
	m, ok := jsonrpc.LenientMembers(params)
	if !ok {
		return nil, badTaskParams("params", "params must be an object naming a task")
	}
	names := []string{"taskid"}
	if !isPushConfig(canonical) || strings.Contains(method, "/") {
		names = append(names, "id")
	}
	tasks, ok := strs(jsonrpc.LenientLookup(m, names...))
	if !ok {
		return nil, badTaskParams("params.id", "a task id must be a string")
	}
	paths, ok := strs(jsonrpc.LenientLookup(m, "name", "parent"))
	if !ok {
		return nil, badTaskParams("params.name", "a task name must be a string")
	}
	for _, p := range paths {
		id, ok := taskPath(p)
		if !ok {
			return nil, badTaskParams("params.name", "a task name must be tasks/{id}")
		}
		tasks = append(tasks, id)
	}
	if len(tasks) == 0 {
		return nil, badTaskParams("params.id", "the call must name a task")
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
	m, ok := jsonrpc.LenientMembers(params)
	if !ok {
		return nil, nil, nil // the send's own checks refuse it
	}
	if strings.HasPrefix(method, "tasks/") {
		if chosen, ok = strs(jsonrpc.LenientLookup(m, "id")); !ok {
			return nil, nil, badTaskParams("params.id", "a task id must be a string")
		}
	}
	for _, raw := range jsonrpc.LenientLookup(m, "message", "request") {
		msg, ok := jsonrpc.LenientMembers(raw)
		if !ok {
			continue
		}
		ids, ok := strs(jsonrpc.LenientLookup(msg, "taskid"))
		if !ok {
			return nil, nil, badTaskParams("params.message.taskId", "message.taskId must be a string")
		}
		named = append(named, ids...)
		for _, refs := range jsonrpc.LenientLookup(msg, "referencetaskids") {
			var list []json.RawMessage
			if string(refs) != "null" && json.Unmarshal(refs, &list) != nil {
				return nil, nil, badTaskParams("params.message.referenceTaskIds", "message.referenceTaskIds must list task ids")
			}
			ids, ok := strs(list)
			if !ok {
				return nil, nil, badTaskParams("params.message.referenceTaskIds", "message.referenceTaskIds must list task ids")
			}
			named = append(named, ids...)
		}
	}
	return named, chosen, nil
}
