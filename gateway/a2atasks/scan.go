package a2atasks

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// The tasks an answer names, read without decoding the answer (a walk of
// it with jsonrpc's walk): the fast path of taskAnswer, which runs on
// every answer of every forwarded call.
// It finds exactly what decoding the answer into maps finds (the result
// member, then answerTasks), and defers to that decoding whenever a key
// could decode or fold otherwise than it is written: a key with an escape
// sequence or a non-ASCII byte, or an object with very many members.

// maxPlainMembers bounds the members the fast path keeps of one object,
// so that its duplicate-key search stays cheap; a larger object is
// decoded.
const maxPlainMembers = 32

// member is one member of a JSON object, as written, with the walk's own
// record of it (for a walk of its value).
type member struct {
	key, val []byte
	walked   jsonrpc.Member
}

// answerTaskIDs returns the tasks the response object resp names, as
// answerTasks reads them from its result. resp must have passed the
// answer check, as the chain guarantees: its names are unique at every
// depth, so the result member is the first one written so, and nothing of
// the answer after the members the tasks are read from is walked.
// Anything that is not a JSON object (or null) is refused. lay, when it
// is resp's layout (answer.LayoutOf), lets the walk skip each member's
// content without reading it.
func answerTaskIDs(resp json.RawMessage, lay *jsonrpc.Layout) ([]string, error) {
	at, escaped, isObject := lay.FirstMember(resp, "result")
	switch {
	case !isObject:
		if bytes.HasPrefix(bytes.TrimLeft(resp, " \t\n\r"), []byte("null")) {
			return nil, nil
		}
		return nil, answer.ErrNotJSON
	case at >= 0:
		if tasks, plain := plainAnswerTasks(resp, at, lay); plain {
			return tasks, nil
		}
	case !escaped:
		return nil, nil // no result
	}
	result, found, err := decodedResult(resp)
	if err != nil || !found {
		return nil, err
	}
	return answerTasks(result), nil
}

// decodedResult is the result member of resp, decoded into a map: found
// is false when there is none. Anything that is not a JSON object (or
// null) is refused.
func decodedResult(resp json.RawMessage) (result json.RawMessage, found bool, err error) {
	var env map[string]json.RawMessage
	if json.Unmarshal(resp, &env) != nil {
		return nil, false, answer.ErrNotJSON
	}
	result, found = env["result"]
	return result, found, nil
}

// plainAnswerTasks is answerTasks on the result that starts at resp[at],
// when its keys are plain; plain is false otherwise, and tasks is then
// nil.
func plainAnswerTasks(resp []byte, at int, lay *jsonrpc.Layout) (tasks []string, plain bool) {
	it, isObject := lay.WalkObjectAt(resp, at)
	if !isObject {
		return nil, true
	}
	var buf [16]member
	ms, plain := plainMembers(it, buf[:0])
	if !plain {
		return nil, false
	}
	tasks = plainObjectTasks(ms, nil)
	for _, m := range ms {
		if !slices.ContainsFunc(wrappers, func(w string) bool { return jsonrpc.LenientPlainName(m.key, w) }) {
			continue
		}
		inner, isObject := it.WalkObject(m.walked)
		if !isObject {
			continue
		}
		var ibuf [16]member
		ims, plain := plainMembers(inner, ibuf[:0])
		if !plain {
			return nil, false
		}
		tasks = plainObjectTasks(ims, tasks)
	}
	return tasks, true
}

// plainMembers appends the members of the object it walks to buf, the
// last of each key winning as in a map. plain is false when a key is not
// plain ASCII or there are more than maxPlainMembers keys.
func plainMembers(it jsonrpc.ObjectWalk, buf []member) (ms []member, plain bool) {
	for m, ok := it.Next(); ok; m, ok = it.Next() {
		k, v := m.Name, m.Value
		if !jsonrpc.PlainName(k) {
			return nil, false
		}
		if j := slices.IndexFunc(buf, func(m member) bool { return bytes.Equal(m.key, k) }); j >= 0 {
			buf[j].val, buf[j].walked = v, m
			continue
		}
		if len(buf) == maxPlainMembers {
			return nil, false
		}
		buf = append(buf, member{key: k, val: v, walked: m})
	}
	return buf, true
}

// plainObjectTasks appends to out the tasks one object names itself, as
// objectTasks reads them.
func plainObjectTasks(ms []member, out []string) []string {
	out = plainStrs(ms, "taskid", out)
	if kindIsTask(ms) || slices.ContainsFunc(ms, func(m member) bool { return jsonrpc.LenientPlainName(m.key, "status") }) {
		out = plainStrs(ms, "id", out)
	}
	return out
}

// plainStrs appends to out the non-empty strings of the members named
// name, as strs does: null is no value, and when one of them is not a
// string, none is appended.
func plainStrs(ms []member, name string, out []string) []string {
	start := len(out)
	for _, m := range ms {
		if !jsonrpc.LenientPlainName(m.key, name) || string(m.val) == "null" {
			continue
		}
		s, ok := jsonrpc.Unquote(m.val)
		if !ok {
			return out[:start]
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// kindIsTask reports whether one of the members named kind is "task",
// all of them being strings (or null), as isTask reads them.
func kindIsTask(ms []member) bool {
	task := false
	for _, m := range ms {
		if !jsonrpc.LenientPlainName(m.key, "kind") || string(m.val) == "null" {
			continue
		}
		if len(m.val) < 2 || m.val[0] != '"' {
			return false
		}
		if inner := m.val[1 : len(m.val)-1]; jsonrpc.PlainString(inner) {
			task = task || string(inner) == "task"
			continue
		}
		s, _ := jsonrpc.Unquote(m.val)
		task = task || s == "task"
	}
	return task
}
