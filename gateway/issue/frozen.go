package issue

import (
	"context"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// frozen refuses issuance to or for a frozen target or principal:
// grant_denied (-32047) with data.detail "frozen" and what is frozen,
// never the operator's reason. A freeze list that cannot answer refuses
// too (revocation_unavailable naming it): issuance fails closed.
func (is *Issuer) frozen(ctx context.Context, target string, principals ...string) *jsonrpc.Error {
	if is.deps.Checks == nil {
		return nil
	}
	r := is.deps.Checks.NotFrozen(ctx, target, principals...)
	if r == nil {
		return nil
	}
	if r.Reason != enforce.CapabilityRevoked {
		return WireError(r)
	}
	what, _ := r.Data["frozen"].(map[string]string)
	return CapErr(jsonrpc.CodeGrantDenied, "grant denied: the "+what["kind"]+" "+what["name"]+" is frozen by an operator",
		map[string]any{"detail": "frozen", "frozen": what})
}

// frozenOutcome is the audit outcome of an issuance frozen refused:
// "frozen", or the reason of the store failure.
func frozenOutcome(e *jsonrpc.Error) string {
	if m, ok := e.Data.(map[string]any); ok && m["detail"] == "frozen" {
		return "frozen"
	}
	return ReasonOf(e)
}
