package a2agen

import "encoding/json"

// taskTo1 translates a v0.3 Task into v1.0's.
func taskTo1(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	if err := expectKind(o, "task"); err != nil {
		return nil, err
	}
	w := out{}
	if w["id"], err = o.required("id"); err != nil {
		return nil, err
	}
	if err := eventMembers(o, w, "contextId"); err != nil {
		return nil, err
	}
	if w["status"], err = statusTo1(o); err != nil {
		return nil, err
	}
	for _, m := range []struct {
		name string
		fn   func(json.RawMessage, string) (json.RawMessage, error)
	}{{"artifacts", artifactTo1}, {"history", messageTo1}} {
		name, fn := m.name, m.fn
		list, err := o.list(name)
		if err != nil {
			return nil, err
		}
		var done []any
		for i, e := range list {
			t, err := fn(e, o.elem(name, i))
			if err != nil {
				return nil, err
			}
			done = append(done, t)
		}
		w.set(name, done)
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
func statusTo1(o *object) (json.RawMessage, error) {
	raw, ok := o.take("status")
	if !ok {
		return nil, malformed(o.at("status"), "required")
	}
	s, err := readObject(raw, o.at("status"))
	if err != nil {
		return nil, err
	}
	w := out{}
	state, err := s.required("state")
	if err != nil {
		return nil, err
	}
	if w["state"], _ = enum(states, state, 1); w["state"] == "" {
		return nil, malformed(s.at("state"), "unknown task state %q", state)
	}
	if m, ok := s.take("message"); ok {
		if w["message"], err = messageTo1(m, s.at("message")); err != nil {
			return nil, err
		}
	}
	ts, err := s.str("timestamp")
	if err != nil {
		return nil, err
	}
	w.set("timestamp", ts)
	return w.encode(), s.done()
}

// artifactTo1 translates a v0.3 Artifact into v1.0's.
func artifactTo1(raw json.RawMessage, path string) (json.RawMessage, error) {
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
	if w["parts"], err = eachPart(o, "parts", partTo1); err != nil {
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
	w := out{}
	if err := eventMembers(o, w, "taskId", "contextId"); err != nil {
		return nil, err
	}
	if _, _, err := o.boolean("final"); err != nil {
		return nil, err
	}
	var err error
	if w["status"], err = statusTo1(o); err != nil {
		return nil, err
	}
	return w, o.done()
}

// artifactUpdateTo1 translates a v0.3 artifact-update event into v1.0's
// TaskArtifactUpdateEvent.
func artifactUpdateTo1(o *object) (out, error) {
	w := out{}
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
	if w["artifact"], err = artifactTo1(raw, o.at("artifact")); err != nil {
		return nil, err
	}
	return w, o.done()
}
