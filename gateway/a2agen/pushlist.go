package a2agen

import "encoding/json"

// listPushParamsTo03 translates ListTaskPushNotificationConfigs' params
// ({taskId, pageSize, pageToken}) into v0.3's ({id}). v0.3 answers every
// config at once: a page size or a page token cannot be honoured, and is
// refused rather than ignored.
func listPushParamsTo03(o *object, _ []string) (out, error) {
	w, err := pushTaskTo03(o)
	if err != nil {
		return nil, err
	}
	if n, ok, err := o.integer("pageSize"); err != nil {
		return nil, err
	} else if ok && n != 0 {
		return nil, untranslatable(o.at("pageSize"), "v0.3 lists push configs in one page")
	}
	if tok, err := o.str("pageToken"); err != nil {
		return nil, err
	} else if tok != "" {
		return nil, untranslatable(o.at("pageToken"), "v0.3 lists push configs in one page")
	}
	return w, o.done()
}

// listPushResultTo1 translates v0.3's list of TaskPushNotificationConfig
// into v1.0's ListTaskPushNotificationConfigsResponse ({configs}).
func listPushResultTo1(raw json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, malformed("result", "not a list of push configs")
		}
	}
	configs := make([]json.RawMessage, len(list))
	for i, elem := range list {
		c, err := pushResultTo1(elem)
		if err != nil {
			return nil, err
		}
		configs[i] = c
	}
	return out{"configs": configs}.encode(), nil
}
