package answer

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// ErrNotJSON fails an answer that is not JSON: no processor could have
// seen what it carries, so the hop fails (the proxy's error handler
// answers for it).
var ErrNotJSON = errors.New("answer: upstream answer is not JSON")

// ErrTooLarge fails an answer larger than the pipeline's MaxBytes.
var ErrTooLarge = errors.New("answer: upstream answer too large")

// errEventTooLarge refuses a stream event larger than MaxBytes.
var errEventTooLarge = errors.New("answer: upstream stream event too large")

// UpstreamUnavailable is the answer for a call whose upstream hop failed:
// an internal error, for the call's id, with reason upstream_unavailable.
func UpstreamUnavailable(id json.RawMessage) jsonrpc.Response {
	return jsonrpc.NewError(id, &jsonrpc.Error{
		Code: jsonrpc.CodeInternal, Message: "upstream agent unavailable",
		Data: map[string]string{"reason": "upstream_unavailable"},
	})
}

// marshalResponse encodes a response the gateway built itself, which
// always encodes.
func marshalResponse(resp jsonrpc.Response) json.RawMessage {
	b, err := json.Marshal(resp)
	if err != nil {
		panic(fmt.Sprintf("answer: a response the gateway built does not encode: %v", err))
	}
	return b
}
