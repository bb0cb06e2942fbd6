package a2agen

import (
	"encoding/json"
	"fmt"
)

// Version1 is the A2A version a call translated from v0.3 speaks
// upstream, as its A2A-Version header says.
const Version1 = "1.0"

// upgrade is one v0.3 method's translation to v1.0: the params up, the
// result back down.
type upgrade struct {
	v1     string
	params func(o *object, keep []string) (out, error)
	result func(json.RawMessage) (json.RawMessage, error)
}

// lookup03 returns the translation of the v0.3 method v03, if it has one.
// Like lookup, it is a switch: it runs on every call.
func lookup03(v03 string) (upgrade, bool) {
	switch v03 {
	case "message/send":
		return upgrade{"SendMessage", sendParamsTo1, sendResultTo03}, true
	case "message/stream":
		return upgrade{"SendStreamingMessage", sendParamsTo1, streamResultTo03}, true
	case "tasks/get":
		return upgrade{"GetTask", getTaskParamsTo1, taskResultTo03}, true
	case "tasks/cancel":
		return upgrade{"CancelTask", cancelTaskParamsTo1, taskResultTo03}, true
	case "tasks/resubscribe":
		return upgrade{"SubscribeToTask", subscribeParamsTo1, streamResultTo03}, true
	case "tasks/pushNotificationConfig/set":
		return upgrade{"CreateTaskPushNotificationConfig", setPushParamsTo1, pushResultTo03}, true
	case "tasks/pushNotificationConfig/get":
		return upgrade{"GetTaskPushNotificationConfig", pushIDParamsTo1, pushResultTo03}, true
	case "tasks/pushNotificationConfig/list":
		return upgrade{"ListTaskPushNotificationConfigs", listPushParamsTo1, listPushResultTo03}, true
	case "tasks/pushNotificationConfig/delete":
		return upgrade{"DeleteTaskPushNotificationConfig", pushIDParamsTo1, emptyResultTo03}, true
	}
	return upgrade{}, false
}

// TranslatableTo1 returns the v1.0 method a v0.3 method is translated to;
// ok is false for a method with no translation (the v0.1 names, the
// extended card).
func TranslatableTo1(v03 string) (v1 string, ok bool) {
	m, ok := lookup03(v03)
	return m.v1, ok
}

// RequestTo1 translates the params of a v0.3 call of method v03 into the
// params of the v1.0 call of method v1, as Request does the other way:
// keep names top-level members copied as they are, and any other member
// v1.0 cannot express fails the translation. Absent or null params are
// read as an empty object.
func RequestTo1(v03 string, params json.RawMessage, keep ...string) (v1 string, out json.RawMessage, err error) {
	m, ok := lookup03(v03)
	if !ok {
		return "", nil, untranslatable("method", "%q has no v1.0 translation", v03)
	}
	if out, err = translateParams(params, m.params, keep); err != nil {
		return "", nil, err
	}
	return m.v1, out, nil
}

// ResponseTo03 translates one JSON-RPC response object that a v1.0 agent
// sent for a call translated from v0.3 method v03 (a unary answer, or the
// data of one stream event): its result into the v0.3 result's shape, and
// an error's v1.0 typed details into an object v0.3 readers decode
// (errorTo03). A deletion's answer without a result, as a2a-go/v2
// writes it, is read as v1.0's empty result.
func ResponseTo03(v03 string, resp json.RawMessage) (json.RawMessage, error) {
	m, ok := lookup03(v03)
	if !ok {
		return nil, untranslatable("method", "%q has no v1.0 translation", v03)
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(resp, &env) != nil || env == nil {
		return nil, malformed("response", "not a JSON object")
	}
	result, hasResult := env["result"]
	e, hasError := env["error"]
	var err error
	switch {
	case hasError && !hasResult:
		env["error"], err = errorTo03(e)
	case !hasResult && m.v1 == "DeleteTaskPushNotificationConfig":
		env["result"] = json.RawMessage("null")
	case !hasResult:
		err = malformed("response", "neither a result nor an error")
	default:
		env["result"], err = m.result(result)
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("a2agen: encoding the response: %w", err)
	}
	return b, nil
}

// errorTo03 rewrites a v1.0 error object whose data is v1.0's list of
// typed details into the object v0.3 readers decode: data becomes
// {"details": [...]}, the list whole. Any other error is returned as it
// is.
func errorTo03(raw json.RawMessage) (json.RawMessage, error) {
	var e map[string]json.RawMessage
	if json.Unmarshal(raw, &e) != nil || e == nil {
		return nil, malformed("response.error", "not a JSON object")
	}
	var details []json.RawMessage
	if json.Unmarshal(e["data"], &details) != nil || details == nil {
		return raw, nil
	}
	e["data"] = out{"details": details}.encode()
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("a2agen: encoding the error: %w", err)
	}
	return b, nil
}

// translateParams reads params as an object (absent or null is empty) and
// translates it with fn.
func translateParams(params json.RawMessage, fn func(*object, []string) (out, error), keep []string) (json.RawMessage, error) {
	o, err := readObject(params, "params")
	if err != nil {
		return nil, err
	}
	w, err := fn(o, keep)
	if err != nil {
		return nil, err
	}
	return w.encode(), nil
}
