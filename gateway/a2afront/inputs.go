package a2afront

import (
	"fmt"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// maxRequestedGrants bounds one capability request.
const maxRequestedGrants = 16

// checkRequestParams refuses, as invalid params naming the member, what
// a capability request can never be granted in any policy: no grant or
// too many, and a purpose too long for a token to carry. What policy
// decides (an expiry in the past, a grant the agent lacks) is left to it,
// so the caller learns the rule and the reason.
func checkRequestParams(p sep.RequestParams) *jsonrpc.Error {
	if len(p.Grants) == 0 || len(p.Grants) > maxRequestedGrants {
		return invalidMember("params.grants", fmt.Sprintf("grants must list 1 to %d grant ids", maxRequestedGrants),
			map[string]any{"limit": maxRequestedGrants})
	}
	if len(p.Purpose) > sep.MaxPurposeBytes {
		return invalidMember("params.purpose", fmt.Sprintf("purpose is %d bytes; at most %d are accepted", len(p.Purpose), sep.MaxPurposeBytes),
			map[string]any{"limit": sep.MaxPurposeBytes})
	}
	return nil
}

// tooLarge is the refusal of a capability whose token would exceed
// captoken.MaxTokenSize: the caller can narrow the request (fewer
// resources, a shorter purpose) and ask again.
func tooLarge(grant string) *jsonrpc.Error {
	return invalidMember("params.resourceQuery",
		fmt.Sprintf("the capability for %s would exceed %d bytes; narrow the resource query", grant, captoken.MaxTokenSize),
		map[string]any{"limit": captoken.MaxTokenSize, "grant": grant})
}

// invalidMember is invalid_params naming in data.member the path of the
// member at fault, from the request: params.grants.
func invalidMember(member, msg string, data map[string]any) *jsonrpc.Error {
	if data == nil {
		data = map[string]any{}
	}
	data["member"] = member
	return capErr(jsonrpc.CodeInvalidParams, msg, data)
}
