package a2afront

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/policy"
)

// capErr builds a capability error with its stable reason word.
func capErr(code int, msg string, data map[string]any) *jsonrpc.Error {
	return issue.CapErr(code, msg, data)
}

// wireError puts a decision's refusal on the wire: the code its reason
// stands for, its message, and its members beside the reason.
func wireError(r *enforce.Refusal) *jsonrpc.Error { return issue.WireError(r) }

// usable runs the decision core's checks that do not depend on what the
// call wants to do with the capability (enforce.Checker.Usable).
func (f *Front) usable(ctx context.Context, caller *authn.Principal, audience, id, token string) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	claims, rec, r := f.checks.Usable(ctx, caller.ID, audience, id, token)
	return claims, rec, wireError(r)
}

// scopeTo runs every check of a call that acts through a capability
// (enforce.Checker.Decide) and scopes the call to it when it passes.
func (f *Front) scopeTo(ctx context.Context, c *call, q enforce.Request) (*captoken.Claims, *jsonrpc.Error) {
	q.Holder = c.principal.ID
	claims, scope, r := f.checks.Decide(ctx, q)
	if r != nil {
		return claims, wireError(r)
	}
	c.scope = scope
	return claims, nil
}

// refuseCaseVariants is enforce.RefuseCaseVariants on the wire.
func refuseCaseVariants(members map[string]json.RawMessage, at, what string, reserved ...string) *jsonrpc.Error {
	return wireError(enforce.RefuseCaseVariants(members, at, what, reserved))
}

// presentedToken is the token the caller sent with the call, in params or
// in the A2A-Capability header; both may be sent only when they agree.
func presentedToken(r *http.Request, fromParams string) (string, *jsonrpc.Error) {
	return issue.PresentedToken(r.Header.Get(proxy.HeaderCapabilityToken), fromParams)
}

func toPolicyPrincipal(p *authn.Principal) policy.Principal { return issue.PolicyPrincipal(p) }

// reasonOf is the reason word of e, as the audit trail records it.
func reasonOf(e *jsonrpc.Error) string { return issue.ReasonOf(e) }
