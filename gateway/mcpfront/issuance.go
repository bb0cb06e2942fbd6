package mcpfront

import (
	"context"
	"log/slog"

	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// The capability flows at an MCP server: a2a/capabilities/request,
// approval/status, attenuate and revoke sent to /mcp/{server} are
// answered by the gateway's issuer (package issue), exactly as the A2A
// front answers them for an agent, with the server as the target. They
// are never forwarded: the server sees nothing of them.

// capabilityMethods are the methods answered by the issuer.
var capabilityMethods = map[string]func(*Front, context.Context, *call) outcome{
	jsonrpc.MethodCapabilitiesRequest:   (*Front).capabilitiesRequest,
	jsonrpc.MethodApprovalStatus:        (*Front).approvalStatus,
	jsonrpc.MethodCapabilitiesAttenuate: (*Front).capabilitiesAttenuate,
	jsonrpc.MethodCapabilitiesRevoke:    (*Front).capabilitiesRevoke,
}

// issuer is the gateway's issuer over the front's stores, or nil when the
// front was given no keys or policy to issue with.
func (f *Front) issuer() *issue.Issuer {
	if f.deps.Keys == nil || f.deps.Policy == nil {
		return nil
	}
	return issue.New(issue.Config{Issuer: f.cfg.Issuer, MaxTTL: f.cfg.MaxTTL}, issue.Deps{
		Keys: f.deps.Keys, Verifier: f.deps.Verifier, Index: f.deps.Index, Revocations: f.deps.Revocations,
		Policy: f.deps.Policy, Limits: f.deps.Limits, Approvals: f.deps.Approvals,
		Shadow: f.deps.Shadow, Disagreed: f.deps.Metrics.ShadowDisagreement,
		Checks: f.checks, Audit: f.audit, Logger: f.deps.Logger, Now: f.deps.Now,
	})
}

// audit records one event of the capability flows.
func (f *Front) audit(ctx context.Context, event string, attrs ...slog.Attr) {
	f.deps.Audit.LogAttrs(ctx, slog.LevelInfo, event, attrs...)
}

// answerCapabilities answers a capability method, or refuses it when the
// front cannot issue.
func (f *Front) answerCapabilities(ctx context.Context, c *call, m func(*Front, context.Context, *call) outcome) outcome {
	if c.req.IsNotification() {
		return fail(nil, jsonrpc.NewCodeError(jsonrpc.CodeInvalidRequest, c.req.Method+" must be a request, with an id"))
	}
	if f.issuer() == nil {
		return fail(c.req.ID, issue.CapErr(jsonrpc.CodeGrantDenied,
			"grant denied: this gateway issues no capabilities at its MCP front (no signing keys or policy)", nil))
	}
	return m(f, ctx, c)
}

// answerWith decodes a call's params strictly as P and answers what
// answer makes of them.
func answerWith[P any](c *call, answer func(P) (any, *jsonrpc.Error)) outcome {
	var p P
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	res, e := answer(p)
	if e != nil {
		return fail(c.req.ID, e)
	}
	resp := jsonrpc.NewResult(c.req.ID, res)
	return outcome{resp: &resp}
}

func (f *Front) capabilitiesRequest(ctx context.Context, c *call) outcome {
	return answerWith(c, func(p sep.RequestParams) (any, *jsonrpc.Error) {
		return f.issuer().Request(ctx, c.principal, serverTarget{c.server}, p)
	})
}

func (f *Front) approvalStatus(ctx context.Context, c *call) outcome {
	return answerWith(c, func(p sep.ApprovalStatusParams) (any, *jsonrpc.Error) {
		return f.issuer().ApprovalStatus(ctx, c.principal, c.server.cfg.Name, p)
	})
}

func (f *Front) capabilitiesAttenuate(ctx context.Context, c *call) outcome {
	header := c.http.Header.Get(proxy.HeaderCapabilityToken)
	return answerWith(c, func(p sep.AttenuateParams) (any, *jsonrpc.Error) {
		return f.issuer().Attenuation(ctx, f.checks, c.principal, c.server.cfg.Name, p, header)
	})
}

func (f *Front) capabilitiesRevoke(ctx context.Context, c *call) outcome {
	header := c.http.Header.Get(proxy.HeaderCapabilityToken)
	return answerWith(c, func(p sep.RevokeParams) (any, *jsonrpc.Error) {
		return f.issuer().Revocation(ctx, f.checks, c.principal, c.server.cfg.Name, p, header)
	})
}

// serverTarget is an MCP server as the issuer sees a target: its grants,
// and its resources from the config's catalog. A server without a catalog
// can be granted only whole_agent grants.
type serverTarget struct{ s *server }

// Name implements issue.Target.
func (t serverTarget) Name() string { return t.s.cfg.Name }

// Grant implements issue.Target.
func (t serverTarget) Grant(id string) (policy.Grant, bool) {
	for _, g := range t.s.cfg.Grants {
		if g.ID == id {
			return g, true
		}
	}
	return policy.Grant{}, false
}

// Resolve implements issue.Target: the catalog's resources that match q.
func (t serverTarget) Resolve(_ context.Context, q *policy.ResourceQuery) ([]policy.Resource, error) {
	if len(t.s.cfg.Catalog) == 0 {
		return nil, issue.NoResolver("MCP server " + t.s.cfg.Name + " cannot resolve resources (the config gives it no catalog)")
	}
	var out []policy.Resource
	for _, r := range t.s.cfg.Catalog {
		if q.Matches(r) {
			out = append(out, r)
		}
	}
	return out, nil
}
