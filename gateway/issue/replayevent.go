package issue

import (
	"log/slog"
	"time"

	"github.com/capgate/capgate/policy"
)

// requestAttr is what a capability.issue event records of the request
// besides the principal id, agent, grants and purpose, so that `capgate
// policy replay` can decide it again under another policy: the caller's
// issuer, groups and the claims the policy in force names (no other
// claim: the trail keeps only what a decision turned on), the requested
// operations, resource query and expiry, the gateway's ceiling, and the
// approval it redeems, if any (the policy then asked for that approval).
func requestAttr(in policy.Input, pol *policy.Policy, approvalID string) slog.Attr {
	m := map[string]any{"issuer": in.Principal.Issuer, "groups": nonNil(in.Principal.Groups),
		"operations": nonNil(in.Operations), "max_ttl": in.MaxTTL.String()}
	if named := pol.Vocabulary().Claims; len(named) > 0 {
		claims := map[string]any{}
		for k := range named {
			if v, ok := in.Principal.Claims[k]; ok {
				claims[k] = v
			}
		}
		m["claims"] = claims
	}
	if approvalID != "" {
		m["approval_id"] = approvalID
	}
	if in.Resource != nil {
		m["resource_query"] = in.Resource
	}
	if !in.Expires.IsZero() {
		m["expires"] = in.Expires.UTC().Format(time.RFC3339Nano)
	}
	return slog.Any("request", m)
}

// nonNil is s, or an empty list for nil, so that the event always shows
// the list.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
