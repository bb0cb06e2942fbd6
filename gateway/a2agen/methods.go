package a2agen

import (
	"encoding/json"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Version03 is the A2A version a translated call speaks upstream, as its
// A2A-Version header says.
const Version03 = "0.3"

// method is one v1.0 method's translation.
type method struct {
	v03    string
	params func(o *object, keep []string) (out, error)
	result func(json.RawMessage) (json.RawMessage, error)
}

// lookup returns the translation of the v1.0 method v1, in any spelling
// of the v1 service the gateway accepts (jsonrpc.V1Name), if it has one.
// It is a switch rather than a map built per call: it runs on every call
// the gateway receives (Translatable), and allocates nothing.
func lookup(v1 string) (method, bool) {
	name, ok := jsonrpc.V1Name(v1)
	if !ok {
		return method{}, false
	}
	switch name {
	case "SendMessage":
		return method{"message/send", sendParamsTo03, sendResultTo1}, true
	case "SendStreamingMessage":
		return method{"message/stream", sendParamsTo03, streamResultTo1}, true
	case "GetTask":
		return method{"tasks/get", getTaskParamsTo03, taskResultTo1}, true
	case "CancelTask":
		return method{"tasks/cancel", cancelTaskParamsTo03, taskResultTo1}, true
	case "SubscribeToTask":
		return method{"tasks/resubscribe", subscribeParamsTo03, streamResultTo1}, true
	case "CreateTaskPushNotificationConfig":
		return method{"tasks/pushNotificationConfig/set", createPushTo03, pushResultTo1}, true
	case "GetTaskPushNotificationConfig":
		return method{"tasks/pushNotificationConfig/get", pushIDTo03, pushResultTo1}, true
	case "ListTaskPushNotificationConfigs":
		return method{"tasks/pushNotificationConfig/list", listPushParamsTo03, listPushResultTo1}, true
	case "DeleteTaskPushNotificationConfig":
		return method{"tasks/pushNotificationConfig/delete", pushIDTo03, emptyResultTo1}, true
	}
	return method{}, false
}

// The params translations in lookup's shape (keep is used by sends only).
func getTaskParamsTo03(o *object, _ []string) (out, error) { return taskIDParamsTo03(o, true, false) }
func cancelTaskParamsTo03(o *object, _ []string) (out, error) {
	return taskIDParamsTo03(o, false, true)
}
func subscribeParamsTo03(o *object, _ []string) (out, error) {
	return taskIDParamsTo03(o, false, false)
}
func createPushTo03(o *object, _ []string) (out, error) { return createPushParamsTo03(o) }
func pushIDTo03(o *object, _ []string) (out, error)     { return pushIDParamsTo03(o) }

// Translatable returns the v0.3 method a v1.0 method, in any accepted
// spelling, is translated to; ok is false for a method with no
// translation.
func Translatable(v1 string) (v03 string, ok bool) {
	m, ok := lookup(v1)
	return m.v03, ok
}

// Request translates the params of a v1.0 call of method v1 into the
// params of the v0.3 call of method v03. keep names members at the top
// level of params that both generations carry as they are there (an
// extension's members); any other member that v0.3 cannot express fails
// the translation. Absent or null params are read as an empty object.
func Request(v1 string, params json.RawMessage, keep ...string) (v03 string, out json.RawMessage, err error) {
	m, ok := lookup(v1)
	if !ok {
		return "", nil, untranslatable("method", "%q has no v0.3 translation", v1)
	}
	if out, err = translateParams(params, m.params, keep); err != nil {
		return "", nil, err
	}
	return m.v03, out, nil
}

// Response translates one JSON-RPC response object that a v0.3 agent
// sent for a call translated from v1.0 method v1 (a unary answer, or the
// data of one stream event): its result into the v1.0 result's shape. An
// error response is returned as it is: A2A's error codes are the same in
// both generations.
func Response(v1 string, resp json.RawMessage) (json.RawMessage, error) {
	m, ok := lookup(v1)
	if !ok {
		return nil, untranslatable("method", "%q has no v0.3 translation", v1)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(resp, &env); err != nil {
		return nil, malformed("response", "not a JSON object")
	}
	result, ok := env["result"]
	_, isErr := env["error"]
	switch {
	case isErr && !ok:
		return resp, nil
	case !ok && m.v03 == "tasks/pushNotificationConfig/delete":
		// a2a-go's v0.3 server omits a deletion's null result.
		result = json.RawMessage("null")
	case !ok:
		return nil, malformed("response", "neither a result nor an error")
	}
	t, err := m.result(result)
	if err != nil {
		return nil, err
	}
	env["result"] = t
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("a2agen: encoding the response: %w", err)
	}
	return b, nil
}
