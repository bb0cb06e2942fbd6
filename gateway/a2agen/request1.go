package a2agen

import "encoding/json"

// The params of v0.3 calls translated to v1.0 (the other direction of
// request.go and push.go).

// sendParamsTo1 translates v0.3 MessageSendParams into v1.0
// SendMessageRequest params. keep names top-level members copied as they
// are (an extension's members).
func sendParamsTo1(o *object, keep []string) (out, error) {
	w := out{}
	var err error
	if w["message"], err = sendMessage(o, messageTo1); err != nil {
		return nil, err
	}
	if raw, ok := o.take("configuration"); ok {
		if w["configuration"], err = configTo1(raw, o.at("configuration")); err != nil {
			return nil, err
		}
	}
	return sendRest(o, w, keep)
}

// configTo1 translates v0.3's MessageSendConfiguration. "blocking" false
// is v1.0's returnImmediately; true, or absent, is v1.0's default.
func configTo1(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	w := out{}
	if err := outputMembers(o, w); err != nil {
		return nil, err
	}
	blocking, present, err := o.boolean("blocking")
	if err != nil {
		return nil, err
	}
	if present && !blocking {
		w["returnImmediately"] = true
	}
	if pc, ok := o.take("pushNotificationConfig"); ok {
		cfg, err := readObject(pc, o.at("pushNotificationConfig"))
		if err != nil {
			return nil, err
		}
		push := out{}
		if err := pushConfigTo1(cfg, push); err != nil {
			return nil, err
		}
		w["taskPushNotificationConfig"] = push
	}
	return w.encode(), o.done()
}

// noMetadata refuses a request metadata member the v1.0 request has no
// place for; an empty object is no metadata.
func noMetadata(o *object) error {
	md, err := o.metadata("metadata")
	if err == nil && len(md) > 0 && !isEmptyObject(md) {
		err = untranslatable(o.at("metadata"), "the v1.0 request has no metadata")
	}
	return err
}

// isEmptyObject reports whether raw is the JSON object {}.
func isEmptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) == 0
}

// taskIDParamsTo1 translates v0.3's TaskQueryParams and TaskIdParams into
// GetTaskRequest, CancelTaskRequest or SubscribeToTaskRequest: the task's
// id, and historyLength or metadata where the v1.0 request has them.
func taskIDParamsTo1(o *object, history, metadata bool) (out, error) {
	if !metadata {
		if err := noMetadata(o); err != nil {
			return nil, err
		}
	}
	return taskIDParams(o, history, metadata)
}

// errOr returns err, or next() when err is nil.
func errOr(err error, next func() error) error {
	if err != nil {
		return err
	}
	return next()
}

// The params translations in lookup03's shape (keep is used by sends only).
func getTaskParamsTo1(o *object, _ []string) (out, error) { return taskIDParamsTo1(o, true, false) }
func cancelTaskParamsTo1(o *object, _ []string) (out, error) {
	return taskIDParamsTo1(o, false, true)
}
func subscribeParamsTo1(o *object, _ []string) (out, error) {
	return taskIDParamsTo1(o, false, false)
}

// setPushParamsTo1 translates tasks/pushNotificationConfig/set's params,
// a v0.3 TaskPushNotificationConfig, into v1.0's.
func setPushParamsTo1(o *object, _ []string) (out, error) {
	return taskPushTo1(o)
}

// pushIDParamsTo1 translates v0.3's GetTaskPushNotificationConfigParams
// and DeleteTaskPushNotificationConfigParams ({id,
// pushNotificationConfigId}) into v1.0's ({taskId, id}). v1.0 always
// names the configuration.
func pushIDParamsTo1(o *object, _ []string) (out, error) {
	w := out{}
	var err error
	if w["taskId"], err = o.required("id"); err != nil {
		return nil, err
	}
	if w["id"], err = o.required("pushNotificationConfigId"); err != nil {
		return nil, err
	}
	return w, errOr(noMetadata(o), o.done)
}
