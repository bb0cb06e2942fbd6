package a2agen

import (
	"encoding/json"
	"fmt"
)

// listPushParamsTo1 translates tasks/pushNotificationConfig/list's params
// ({id}) into ListTaskPushNotificationConfigs' ({taskId}), asking for
// every config at once, as v0.3 lists them.
func listPushParamsTo1(o *object, _ []string) (out, error) {
	w := out{}
	var err error
	if w["taskId"], err = o.required("id"); err != nil {
		return nil, err
	}
	return w, errOr(noMetadata(o), o.done)
}

// listPushResultTo03 translates a ListTaskPushNotificationConfigsResponse
// ({configs, nextPageToken}) into v0.3's list of
// TaskPushNotificationConfig. v0.3 has no pages: an answer that says more
// configs follow is refused rather than cut short.
func listPushResultTo03(raw json.RawMessage) (json.RawMessage, error) {
	o, err := readObject(raw, "result")
	if err != nil {
		return nil, err
	}
	configs, err := o.list("configs")
	if err != nil {
		return nil, err
	}
	if tok, err := o.str("nextPageToken"); err != nil {
		return nil, err
	} else if tok != "" {
		return nil, untranslatable(o.at("nextPageToken"), "v0.3 lists push configs in one page, and the agent has more")
	}
	if err := o.done(); err != nil {
		return nil, err
	}
	list := make([]json.RawMessage, len(configs))
	for i, c := range configs {
		co, err := readObject(c, o.elem("configs", i))
		if err != nil {
			return nil, err
		}
		w, err := createPushParamsTo03(co)
		if err != nil {
			return nil, err
		}
		list[i] = w.encode()
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("a2agen: encoding the list: %w", err)
	}
	return b, nil
}
