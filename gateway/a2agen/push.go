package a2agen

import "encoding/json"

// pushConfigTo03 translates a v1.0 TaskPushNotificationConfig into v0.3's
// PushNotificationConfig. withTask consumes its taskId (the caller puts it
// elsewhere); otherwise a taskId is refused, as v0.3 has no place for it.
func pushConfigTo03(o *object, withTask bool) (out, error) {
	if err := noTenant(o); err != nil {
		return nil, err
	}
	if !withTask {
		if id, err := o.str("taskId"); err != nil || id != "" {
			if err == nil {
				err = untranslatable(o.at("taskId"), "v0.3 names no task in a send's push configuration")
			}
			return nil, err
		}
	}
	w := out{}
	var err error
	if w["url"], err = o.required("url"); err != nil {
		return nil, err
	}
	for _, name := range []string{"id", "token"} {
		s, err := o.str(name)
		if err != nil {
			return nil, err
		}
		w.set(name, s)
	}
	if raw, ok := o.take("authentication"); ok {
		a, err := readObject(raw, o.at("authentication"))
		if err != nil {
			return nil, err
		}
		scheme, err := a.required("scheme")
		if err != nil {
			return nil, err
		}
		auth := out{"schemes": []string{scheme}}
		cred, err := a.str("credentials")
		if err != nil {
			return nil, err
		}
		auth.set("credentials", cred)
		if err := a.done(); err != nil {
			return nil, err
		}
		w["authentication"] = auth
	}
	return w, o.done()
}

// createPushParamsTo03 translates CreateTaskPushNotificationConfig's
// params (a TaskPushNotificationConfig) into v0.3's
// TaskPushNotificationConfig.
func createPushParamsTo03(o *object) (out, error) {
	task, err := o.required("taskId")
	if err != nil {
		return nil, err
	}
	cfg, err := pushConfigTo03(o, true)
	if err != nil {
		return nil, err
	}
	return out{"taskId": task, "pushNotificationConfig": cfg}, o.done()
}

// pushIDParamsTo03 translates Get- and DeleteTaskPushNotificationConfig's
// params ({taskId, id}) into v0.3's ({id, pushNotificationConfigId}).
func pushIDParamsTo03(o *object) (out, error) {
	w, err := pushTaskTo03(o)
	if err != nil {
		return nil, err
	}
	if w["pushNotificationConfigId"], err = o.required("id"); err != nil {
		return nil, err
	}
	return w, o.done()
}

// pushResultTo1 translates a v0.3 TaskPushNotificationConfig result into
// v1.0's.
func pushResultTo1(raw json.RawMessage) (json.RawMessage, error) {
	o, err := readObject(raw, "result")
	if err != nil {
		return nil, err
	}
	w, err := taskPushTo1(o)
	if err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// taskPushTo1 translates a v0.3 TaskPushNotificationConfig into v1.0's,
// whose members are the config's own with the task id beside them.
func taskPushTo1(o *object) (out, error) {
	w := out{}
	var err error
	if w["taskId"], err = o.required("taskId"); err != nil {
		return nil, err
	}
	cfgRaw, ok := o.take("pushNotificationConfig")
	if !ok {
		return nil, malformed(o.at("pushNotificationConfig"), "required")
	}
	c, err := readObject(cfgRaw, o.at("pushNotificationConfig"))
	if err != nil {
		return nil, err
	}
	if err := pushConfigTo1(c, w); err != nil {
		return nil, err
	}
	return w, o.done()
}

// pushResultTo03 translates a v1.0 TaskPushNotificationConfig result into
// v0.3's: the task id beside the config.
func pushResultTo03(raw json.RawMessage) (json.RawMessage, error) {
	o, err := readObject(raw, "result")
	if err != nil {
		return nil, err
	}
	w, err := createPushParamsTo03(o)
	if err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// emptyResultTo03 is tasks/pushNotificationConfig/delete's result, v0.3's
// null, for v1.0's google.protobuf.Empty.
func emptyResultTo03(raw json.RawMessage) (json.RawMessage, error) {
	if !isNull(raw) && !isEmptyObject(raw) {
		return nil, untranslatable("result", "a deletion answers nothing, not %s", raw)
	}
	return json.RawMessage("null"), nil
}

// pushConfigTo1 writes a v0.3 PushNotificationConfig's members into w.
// v1.0 authenticates a push with one scheme; several are refused.
func pushConfigTo1(c *object, w out) error {
	var err error
	if w["url"], err = c.required("url"); err != nil {
		return err
	}
	for _, name := range []string{"id", "token"} {
		s, err := c.str(name)
		if err != nil {
			return err
		}
		w.set(name, s)
	}
	if raw, ok := c.take("authentication"); ok {
		a, err := readObject(raw, c.at("authentication"))
		if err != nil {
			return err
		}
		schemes, err := a.strings("schemes")
		if err != nil {
			return err
		}
		if len(schemes) != 1 {
			return untranslatable(a.at("schemes"), "v1.0 authenticates a push with one scheme, not %d", len(schemes))
		}
		auth := out{"scheme": schemes[0]}
		cred, err := a.str("credentials")
		if err != nil {
			return err
		}
		auth.set("credentials", cred)
		if err := a.done(); err != nil {
			return err
		}
		w["authentication"] = auth
	}
	return c.done()
}

// pushTaskTo03 starts the v0.3 params of a push-config call naming a
// task: v1.0's taskId becomes v0.3's id; a tenant is refused.
func pushTaskTo03(o *object) (out, error) {
	if err := noTenant(o); err != nil {
		return nil, err
	}
	id, err := o.required("taskId")
	if err != nil {
		return nil, err
	}
	return out{"id": id}, nil
}
