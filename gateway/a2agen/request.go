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
	raw, ok := o.take("message")
	if !ok {
		return nil, malformed(o.at("message"), "required")
	}
	var err error
	if w["message"], err = messageTo03(raw, o.at("message")); err != nil {
		return nil, err
	}
	if w["configuration"], err = configTo03(o); err != nil {
		return nil, err
	}
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
	modes, err := o.strings("acceptedOutputModes")
	if err != nil {
		return nil, err
	}
	w.set("acceptedOutputModes", modes)
	if n, ok, err := o.integer("historyLength"); err != nil {
		return nil, err
	} else if ok {
		w["historyLength"] = n
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
