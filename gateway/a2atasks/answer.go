package a2atasks

import (
	"encoding/json"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// wrappers are the members under which a v1.0 answer or stream event
// wraps what it carries.
var wrappers = []string{"task", "message", "statusupdate", "artifactupdate"}

// answerTasks returns the tasks an answer's result names, looking only
// where A2A puts them: a Task's id, the taskId of a message or an update
// event, at the top or under a v1.0 wrapper. Ids deeper inside (in a
// message's parts, say) are content, not the agent's word on a task.
func answerTasks(result json.RawMessage) []string {
	m, ok := jsonrpc.LenientMembers(result)
	if !ok {
		return nil
	}
	tasks := objectTasks(m)
	for _, raw := range jsonrpc.LenientLookup(m, wrappers...) {
		if inner, ok := jsonrpc.LenientMembers(raw); ok {
			tasks = append(tasks, objectTasks(inner)...)
		}
	}
	return tasks
}

// objectTasks returns the tasks one object names itself.
func objectTasks(m map[string]json.RawMessage) []string {
	var out []string
	ids, _ := strs(jsonrpc.LenientLookup(m, "taskid"))
	out = append(out, ids...)
	if isTask(m) {
		ids, _ := strs(jsonrpc.LenientLookup(m, "id"))
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
	kinds, _ := strs(jsonrpc.LenientLookup(m, "kind"))
	for _, k := range kinds {
		if k == "task" {
			return true
		}
	}
	return len(jsonrpc.LenientLookup(m, "status")) > 0
}

// taskObjectID is the id of a Task object in a listing, or "".
func taskObjectID(raw json.RawMessage) string {
	m, ok := jsonrpc.LenientMembers(raw)
	if !ok {
		return ""
	}
	ids, ok := strs(jsonrpc.LenientLookup(m, "id"))
	if !ok || len(ids) != 1 {
		return ""
	}
	return ids[0]
}
