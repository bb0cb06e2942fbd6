package a2agen

import "encoding/json"

// The answers of v1.0 agents translated to v0.3 (the other direction of
// answer.go and task.go).

// payloadTo03 translates a v1.0 StreamResponse (or SendMessageResponse):
// an object with exactly one of the members allowed, each naming the
// v0.3 result it carries, which is told apart by its "kind".
func payloadTo03(raw json.RawMessage, path string, allowed ...string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	member := ""
	for _, name := range allowed {
		if _, ok := o.take(name); ok {
			if member != "" {
				return nil, malformed(o.at(name), "an answer carries one payload, and this one also has %q", member)
			}
			member = name
		}
	}
	if err := o.done(); err != nil {
		return nil, err
	}
	if member == "" {
		return nil, malformed(path, "the answer carries none of %v", allowed)
	}
	at := o.at(member)
	switch member {
	case "message":
		return messageTo03(o.members[member], at)
	case "task":
		return taskTo03(o.members[member], at)
	}
	e, err := readObject(o.members[member], at)
	if err != nil {
		return nil, err
	}
	var w out
	if member == "statusUpdate" {
		w, err = statusUpdateTo03(e)
	} else {
		w, err = to03.artifactUpdate(e)
	}
	if err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// sendResultTo03 is message/send's result: a task or a message.
func sendResultTo03(raw json.RawMessage) (json.RawMessage, error) {
	return payloadTo03(raw, "result", "message", "task")
}

// streamResultTo03 is one event of message/stream or tasks/resubscribe.
func streamResultTo03(raw json.RawMessage) (json.RawMessage, error) {
	return payloadTo03(raw, "result", "message", "task", "statusUpdate", "artifactUpdate")
}

// taskResultTo03 is tasks/get's and tasks/cancel's result: the Task.
func taskResultTo03(raw json.RawMessage) (json.RawMessage, error) {
	return taskTo03(raw, "result")
}

// final03 lists the v0.3 states after which a stream ends: v1.0 says so
// by ending the stream, v0.3 by the status update's "final" flag.
var final03 = map[string]bool{
	"completed": true, "failed": true, "canceled": true, "rejected": true,
	"input-required": true, "auth-required": true,
}

// statusUpdateTo03 translates a v1.0 TaskStatusUpdateEvent into v0.3's
// status-update event; "final" is set for a state that ends the stream.
func statusUpdateTo03(o *object) (out, error) {
	w, state, err := to03.statusUpdate(o)
	if err != nil {
		return nil, err
	}
	w["final"] = final03[state]
	return w, nil
}
