package issue

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// CapErr builds a capability error with its stable reason word.
func CapErr(code int, msg string, data map[string]any) *jsonrpc.Error {
	if data == nil {
		data = map[string]any{}
	}
	data["reason"] = jsonrpc.NewCodeError(code, "").Reason()
	return &jsonrpc.Error{Code: code, Message: msg, Data: data}
}

// InvalidMember is invalid_params naming in data.member the path of the
// member at fault, from the request: params.grants.
func InvalidMember(member, msg string, data map[string]any) *jsonrpc.Error {
	if data == nil {
		data = map[string]any{}
	}
	data["member"] = member
	return CapErr(jsonrpc.CodeInvalidParams, msg, data)
}

// WireError puts a decision's refusal on the wire: the code its reason
// stands for, its message, and its members beside the reason.
func WireError(r *enforce.Refusal) *jsonrpc.Error {
	if r == nil {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeOf(string(r.Reason)), Message: r.Message, Data: r.Members()}
}

// StoreDown is enforce.Unavailable on the wire: revocation_unavailable,
// the store that could not answer named in the message and data.detail.
func StoreDown(s enforce.Store, outcome string) *jsonrpc.Error {
	return WireError(enforce.Unavailable(s, outcome))
}

// ReasonOf is the reason word of e, as the audit trail records it.
func ReasonOf(e *jsonrpc.Error) string {
	if r := e.Reason(); r != "" {
		return r
	}
	return strings.ToLower(e.Message)
}

// LimitError renders a limiter's answer: rate_limited with the limit and
// retryAfter (whole seconds, at least 1) for a refusal; the store-loss
// code for a limiter that cannot answer, because the gateway fails
// closed.
func LimitError(err error) *jsonrpc.Error {
	if err == nil {
		return nil // before r, which errors.As moves to the heap
	}
	var r *ratelimit.Refusal
	switch {
	case errors.As(err, &r):
		secs := max(1, int(math.Ceil(r.RetryAfter.Seconds())))
		return CapErr(jsonrpc.CodeRateLimited, "rate limited: "+string(r.Limit)+"; retry after the given seconds",
			map[string]any{"limit": string(r.Limit), "retryAfter": secs})
	}
	return StoreDown(enforce.RateLimitStore, "")
}

// maxRequestedGrants bounds one capability request.
const maxRequestedGrants = 16

// checkRequestParams refuses, as invalid params naming the member, what
// a capability request can never be granted in any policy: no grant or
// too many, and a purpose too long for a token to carry. What policy
// decides (an expiry in the past, a grant the target lacks) is left to
// it, so the caller learns the rule and the reason.
func checkRequestParams(p sep.RequestParams) *jsonrpc.Error {
	if len(p.Grants) == 0 || len(p.Grants) > maxRequestedGrants {
		return InvalidMember("params.grants", fmt.Sprintf("grants must list 1 to %d grant ids", maxRequestedGrants),
			map[string]any{"limit": maxRequestedGrants})
	}
	if len(p.Purpose) > sep.MaxPurposeBytes {
		return InvalidMember("params.purpose", fmt.Sprintf("purpose is %d bytes; at most %d are accepted", len(p.Purpose), sep.MaxPurposeBytes),
			map[string]any{"limit": sep.MaxPurposeBytes})
	}
	return nil
}

// tooLarge is the refusal of a capability whose token would exceed
// captoken.MaxTokenSize: the caller can narrow the request (fewer
// resources, a shorter purpose) and ask again.
func tooLarge(grant string) *jsonrpc.Error {
	return InvalidMember("params.resourceQuery",
		fmt.Sprintf("the capability for %s would exceed %d bytes; narrow the resource query", grant, captoken.MaxTokenSize),
		map[string]any{"limit": captoken.MaxTokenSize, "grant": grant})
}

// denial renders a policy denial as grant_denied, naming the rules and the
// reasons so the caller (and the audit) knows which rule and why.
func denial(d policy.Decision) *jsonrpc.Error {
	rules := make([]string, 0, len(d.Matched))
	for _, m := range d.Matched {
		rules = append(rules, string(m.Effect)+" "+m.ID)
	}
	texts := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		texts = append(texts, r.Text)
	}
	msg := "grant denied"
	if len(texts) > 0 {
		msg += ": " + texts[len(texts)-1]
	}
	return CapErr(jsonrpc.CodeGrantDenied, msg, map[string]any{
		"rules": rules, "reasons": d.Reasons, "policyRevision": d.Revision,
	})
}

// noResolver is the error of a target that cannot resolve resources: its
// text explains why, and it is ErrNoResolver.
type noResolver string

func (e noResolver) Error() string        { return string(e) }
func (e noResolver) Is(target error) bool { return target == ErrNoResolver }

// NoResolver is an error that is ErrNoResolver and reads as why: the
// refusal's explanation, for example "MCP server files has no catalog".
func NoResolver(why string) error { return noResolver(why) }
