package a2agen

import "encoding/json"

// direction is what differs between translating a task, an artifact or
// an update event into v1.0 (to1) and into v0.3 (to03): the parts,
// messages and status inside them, and v0.3's "kind" discriminator.
type direction struct {
	part, message func(json.RawMessage, string) (json.RawMessage, error)
	// status translates o's member "status" and returns the translated
	// state in v0.3's spelling.
	status func(o *object) (json.RawMessage, string, error)
	// kinds is true when the target generation writes "kind".
	kinds bool
}

var (
	to1  = direction{part: partTo1, message: messageTo1, status: statusTo1}
	to03 = direction{part: partTo03, message: messageTo03, status: statusTo03, kinds: true}
)

// kind starts an object of v0.3 kind k, when the target writes kinds.
func (d direction) kind(k string) out {
	if d.kinds {
		return out{"kind": k}
	}
	return out{}
}

// taskTo1 translates a v0.3 Task into v1.0's.
func taskTo1(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	if err := expectKind(o, "task"); err != nil {
		return nil, err
	}
	return to1.task(o)
}

// taskTo03 translates a v1.0 Task into v0.3's.
func taskTo03(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	return to03.task(o)
}

// task translates the Task o into the target generation.
func (d direction) task(o *object) (json.RawMessage, error) {
	w := d.kind("task")
	var err error
	if w["id"], err = o.required("id"); err != nil {
		return nil, err
	}
	if err := eventMembers(o, w, "contextId"); err != nil {
		return nil, err
	}
	if w["status"], _, err = d.status(o); err != nil {
		return nil, err
	}
	for _, m := range []struct {
		name string
		fn   func(json.RawMessage, string) (json.RawMessage, error)
	}{{"artifacts", d.artifact}, {"history", d.message}} {
		list, err := o.list(m.name)
		if err != nil {
			return nil, err
		}
		var done []any
		for i, e := range list {
			t, err := m.fn(e, o.elem(m.name, i))
			if err != nil {
				return nil, err
			}
			done = append(done, t)
		}
		w.set(m.name, done)
	}
	if err := o.done(); err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// eventMembers copies the optional contextId (or, with taskId, the ids of
// an update event) and metadata.
func eventMembers(o *object, w out, ids ...string) error {
	for _, name := range ids {
		s, err := o.str(name)
		if err != nil {
			return err
		}
		w.set(name, s)
	}
	md, err := o.metadata("metadata")
	w.set("metadata", md)
	return err
}

// statusTo1 translates o's v0.3 TaskStatus member "status".
func statusTo1(o *object) (json.RawMessage, string, error) {
	return translateStatus(o, 1, messageTo1)
}

// statusTo03 translates o's v1.0 TaskStatus member "status".
func statusTo03(o *object) (json.RawMessage, string, error) {
	return translateStatus(o, 0, messageTo03)
}

// translateStatus translates o's TaskStatus member "status" from the
// generation whose states are in column from of states, with message
// translating its message; it returns the state in v0.3's spelling.
func translateStatus(o *object, from int, message func(json.RawMessage, string) (json.RawMessage, error)) (json.RawMessage, string, error) {
	raw, ok := o.take("status")
	if !ok {
		return nil, "", malformed(o.at("status"), "required")
	}
	s, err := readObject(raw, o.at("status"))
	if err != nil {
		return nil, "", err
	}
	w := out{}
	state, err := s.required("state")
	if err != nil {
		return nil, "", err
	}
	if w["state"], _ = enum(states, state, from); w["state"] == "" {
		return nil, "", malformed(s.at("state"), "unknown task state %q", state)
	}
	v03 := state
	if from == 0 {
		v03 = w["state"].(string)
	}
	if m, ok := s.take("message"); ok {
		if w["message"], err = message(m, s.at("message")); err != nil {
			return nil, "", err
		}
	}
	ts, err := s.str("timestamp")
	if err != nil {
		return nil, "", err
	}
	w.set("timestamp", ts)
	return w.encode(), v03, s.done()
}

// artifact translates an Artifact into the target generation.
func (d direction) artifact(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	w := out{}
	if w["artifactId"], err = o.required("artifactId"); err != nil {
		return nil, err
	}
	for _, name := range []string{"name", "description"} {
		s, err := o.str(name)
		if err != nil {
			return nil, err
		}
		w.set(name, s)
	}
	ext, err := o.strings("extensions")
	if err != nil {
		return nil, err
	}
	w.set("extensions", ext)
	if w["parts"], err = eachPart(o, "parts", d.part); err != nil {
		return nil, err
	}
	if err := eventMembers(o, w); err != nil {
		return nil, err
	}
	return w.encode(), o.done()
}

// statusUpdateTo1 translates a v0.3 status-update event into v1.0's
// TaskStatusUpdateEvent. Its "final" flag has no v1.0 member: a v1.0
// stream ends after the final event instead, as the upstream's does.
func statusUpdateTo1(o *object) (out, error) {
	if _, _, err := o.boolean("final"); err != nil {
		return nil, err
	}
	w, _, err := to1.statusUpdate(o)
	return w, err
}

// statusUpdate translates a TaskStatusUpdateEvent into the target
// generation, and returns its state in v0.3's spelling.
func (d direction) statusUpdate(o *object) (out, string, error) {
	w := d.kind("status-update")
	if err := eventMembers(o, w, "taskId", "contextId"); err != nil {
		return nil, "", err
	}
	status, state, err := d.status(o)
	if err != nil {
		return nil, "", err
	}
	w["status"] = status
	return w, state, o.done()
}

// artifactUpdateTo1 translates a v0.3 artifact-update event into v1.0's
// TaskArtifactUpdateEvent.
func artifactUpdateTo1(o *object) (out, error) { return to1.artifactUpdate(o) }

// artifactUpdate translates a TaskArtifactUpdateEvent into the target
// generation.
func (d direction) artifactUpdate(o *object) (out, error) {
	w := d.kind("artifact-update")
	if err := eventMembers(o, w, "taskId", "contextId"); err != nil {
		return nil, err
	}
	for _, name := range []string{"append", "lastChunk"} {
		v, _, err := o.boolean(name)
		if err != nil {
			return nil, err
		}
		if v {
			w[name] = true
		}
	}
	raw, ok := o.take("artifact")
	if !ok {
		return nil, malformed(o.at("artifact"), "required")
	}
	var err error
	if w["artifact"], err = d.artifact(raw, o.at("artifact")); err != nil {
		return nil, err
	}
	return w, o.done()
}
