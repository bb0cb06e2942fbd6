package a2agen

import "encoding/json"

// noTenant refuses a v1.0 tenant: v0.3 has no tenants.
func noTenant(o *object) error {
	t, err := o.str("tenant")
	if err == nil && t != "" {
		err = untranslatable(o.at("tenant"), "v0.3 has no tenants")
	}
	return err
}

// sendParamsTo03 translates v1.0 SendMessageRequest params into v0.3
// MessageSendParams. keep names top-level members copied as they are
// (an extension's members, which both generations carry there).
func sendParamsTo03(o *object, keep []string) (out, error) {
	w := out{}
	if err := noTenant(o); err != nil {
		return nil, err
	}
	var err error
	if w["message"], err = sendMessage(o, messageTo03); err != nil {
		return nil, err
	}
	if w["configuration"], err = configTo03(o); err != nil {
		return nil, err
	}
	return sendRest(o, w, keep)
}

// configTo03 translates the optional SendMessageConfiguration. v0.3's
// "blocking" is always written, as the negation of returnImmediately, so
// that no v0.3 default decides what the caller asked for.
func configTo03(p *object) (json.RawMessage, error) {
	raw, _ := p.take("configuration")
	o, err := readObject(raw, p.at("configuration"))
	if err != nil {
		return nil, err
	}
	w := out{}
	if err := outputMembers(o, w); err != nil {
		return nil, err
	}
	immediately, _, err := o.boolean("returnImmediately")
	if err != nil {
		return nil, err
	}
	w["blocking"] = !immediately
	if pc, ok := o.take("taskPushNotificationConfig"); ok {
		cfg, err := readObject(pc, o.at("taskPushNotificationConfig"))
		if err != nil {
			return nil, err
		}
		if w["pushNotificationConfig"], err = pushConfigTo03(cfg, false); err != nil {
			return nil, err
		}
	}
	return w.encode(), o.done()
}

// taskIDParamsTo03 translates GetTaskRequest, CancelTaskRequest and
// SubscribeToTaskRequest: the task's id, and historyLength or metadata
// where the method has them.
func taskIDParamsTo03(o *object, history, metadata bool) (out, error) {
	if err := noTenant(o); err != nil {
		return nil, err
	}
	return taskIDParams(o, history, metadata)
}

// taskIDParams copies the members a task's id params have in both
// generations: the task's id, and historyLength or metadata where the
// method has them.
func taskIDParams(o *object, history, metadata bool) (out, error) {
	w := out{}
	var err error
	if w["id"], err = o.required("id"); err != nil {
		return nil, err
	}
	if history {
		if n, ok, err := o.integer("historyLength"); err != nil {
			return nil, err
		} else if ok {
			w["historyLength"] = n
		}
	}
	if metadata {
		md, err := o.metadata("metadata")
		if err != nil {
			return nil, err
		}
		w.set("metadata", md)
	}
	return w, o.done()
}

// outputMembers copies the members a send configuration has in both
// generations: acceptedOutputModes and historyLength.
func outputMembers(o *object, w out) error {
	modes, err := o.strings("acceptedOutputModes")
	if err != nil {
		return err
	}
	w.set("acceptedOutputModes", modes)
	if n, ok, err := o.integer("historyLength"); err != nil {
		return err
	} else if ok {
		w["historyLength"] = n
	}
	return nil
}

// sendMessage translates a send's required message with fn.
func sendMessage(o *object, fn func(json.RawMessage, string) (json.RawMessage, error)) (json.RawMessage, error) {
	raw, ok := o.take("message")
	if !ok {
		return nil, malformed(o.at("message"), "required")
	}
	return fn(raw, o.at("message"))
}

// sendRest copies a send's metadata and the members keep names, which
// both generations carry as they are, and refuses any other member left.
func sendRest(o *object, w out, keep []string) (out, error) {
	md, err := o.metadata("metadata")
	if err != nil {
		return nil, err
	}
	w.set("metadata", md)
	for _, name := range keep {
		if v, ok := o.take(name); ok {
			w[name] = v
		}
	}
	return w, o.done()
}
