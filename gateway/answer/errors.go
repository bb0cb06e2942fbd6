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

// AnswerTooLarge is the refusal of an answer, or of a stream event,
// longer than limit bytes: an internal error with reason answer_too_large
// and data.limit, the limit in bytes. The agent was reached and answered;
// its answer is more than the gateway holds to check, and none of it
// reaches the caller.
func AnswerTooLarge(limit int) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInternal,
		Message: fmt.Sprintf("the agent's answer is larger than the gateway's limit of %d bytes", limit),
		Data:    map[string]any{"reason": jsonrpc.ReasonAnswerTooLarge, "limit": limit},
	}
}

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
