package a2agen

import "encoding/json"

// Roles and task states of both generations, v1.0 name first.
var (
	roles  = [][2]string{{"ROLE_USER", "user"}, {"ROLE_AGENT", "agent"}}
	states = [][2]string{
		{"TASK_STATE_UNSPECIFIED", "unknown"},
		{"TASK_STATE_SUBMITTED", "submitted"},
		{"TASK_STATE_WORKING", "working"},
		{"TASK_STATE_COMPLETED", "completed"},
		{"TASK_STATE_FAILED", "failed"},
		{"TASK_STATE_CANCELED", "canceled"},
		{"TASK_STATE_INPUT_REQUIRED", "input-required"},
		{"TASK_STATE_REJECTED", "rejected"},
		{"TASK_STATE_AUTH_REQUIRED", "auth-required"},
	}
)

// enum maps s from one generation's spelling (column from) to the other's.
func enum(table [][2]string, s string, from int) (string, bool) {
	for _, e := range table {
		if e[from] == s {
			return e[1-from], true
		}
	}
	return "", false
}

// messageTo03 translates a v1.0 Message into v0.3's.
func messageTo03(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	w := out{"kind": "message"}
	role, err := o.required("role")
	if err != nil {
		return nil, err
	}
	if w["role"], _ = enum(roles, role, 0); w["role"] == "" {
		return nil, untranslatable(o.at("role"), "role %q has no v0.3 equivalent", role)
	}
	if w["parts"], err = eachPart(o, "parts", partTo03); err != nil {
		return nil, err
	}
	if err := messageMembers(o, w); err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// messageTo1 translates a v0.3 Message into v1.0's.
func messageTo1(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	if err := expectKind(o, "message"); err != nil {
		return nil, err
	}
	w := out{}
	role, err := o.required("role")
	if err != nil {
		return nil, err
	}
	if w["role"], _ = enum(roles, role, 1); w["role"] == "" {
		return nil, malformed(o.at("role"), "unknown role %q", role)
	}
	if w["parts"], err = eachPart(o, "parts", partTo1); err != nil {
		return nil, err
	}
	if err := messageMembers(o, w); err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// messageMembers copies the members a message has in both generations
// under the same name and type.
func messageMembers(o *object, w out) error {
	id, err := o.required("messageId")
	if err != nil {
		return err
	}
	w["messageId"] = id
	for _, name := range []string{"contextId", "taskId"} {
		s, err := o.str(name)
		if err != nil {
			return err
		}
		w.set(name, s)
	}
	for _, name := range []string{"extensions", "referenceTaskIds"} {
		l, err := o.strings(name)
		if err != nil {
			return err
		}
		w.set(name, l)
	}
	md, err := o.metadata("metadata")
	if err != nil {
		return err
	}
	w.set("metadata", md)
	return o.done()
}

// expectKind consumes v0.3's "kind" discriminator, which must be want
// when present. Where the position of an object already says what it is
// (a send's message, a task's history, tasks/get's result), an absent
// kind, which many v0.3 callers leave out, loses nothing.
func expectKind(o *object, want string) error {
	kind, err := o.str("kind")
	if err != nil {
		return err
	}
	if kind != "" && kind != want {
		return malformed(o.at("kind"), "want %q, got %q", want, kind)
	}
	return nil
}
