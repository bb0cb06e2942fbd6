package a2agen

import "encoding/json"

// payloadTo1 translates a v0.3 result that is told apart by its "kind"
// (a message, a task, a status or artifact update) into the v1.0
// StreamResponse (or SendMessageResponse) member that carries it.
func payloadTo1(raw json.RawMessage, path string, allowed ...string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	kind, err := o.str("kind")
	if err != nil {
		return nil, err
	}
	ok := false
	for _, k := range allowed {
		ok = ok || k == kind
	}
	if !ok {
		return nil, malformed(o.at("kind"), "a %q cannot answer this method", kind)
	}
	var member string
	var value any
	switch kind {
	case "message":
		member = "message"
		value, err = messageTo1(raw, path)
	case "task":
		member = "task"
		value, err = taskTo1(raw, path)
	case "status-update":
		member = "statusUpdate"
		value, err = statusUpdateTo1(o)
	case "artifact-update":
		member = "artifactUpdate"
		value, err = artifactUpdateTo1(o)
	}
	if err != nil {
		return nil, err
	}
	return out{member: value}.encode(), nil
}

// sendResultTo1 is SendMessage's result: {"task"} or {"message"}.
func sendResultTo1(raw json.RawMessage) (json.RawMessage, error) {
	return payloadTo1(raw, "result", "message", "task")
}

// streamResultTo1 is one event of SendStreamingMessage or
// SubscribeToTask: a StreamResponse.
func streamResultTo1(raw json.RawMessage) (json.RawMessage, error) {
	return payloadTo1(raw, "result", "message", "task", "status-update", "artifact-update")
}

// taskResultTo1 is GetTask's and CancelTask's result: the Task itself.
func taskResultTo1(raw json.RawMessage) (json.RawMessage, error) {
	return taskTo1(raw, "result")
}

// emptyResultTo1 is DeleteTaskPushNotificationConfig's result, v1.0's
// google.protobuf.Empty, for v0.3's null.
func emptyResultTo1(raw json.RawMessage) (json.RawMessage, error) {
	if !isNull(raw) && string(raw) != "{}" {
		return nil, untranslatable("result", "a deletion answers nothing, not %s", raw)
	}
	return json.RawMessage("{}"), nil
}
