package a2afront

import (
	"context"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/sep"
)

// capabilitiesAttenuate is a2a/capabilities/attenuate: the holder gets a
// new, narrower capability (issue.Issuer.Attenuation). Attenuation only
// narrows; a widening attempt or a non-attenuable grant is
// attenuation_not_permitted. The child's revocation ids include every
// ancestor's, so revoking any of them kills it.
func (f *Front) capabilitiesAttenuate(ctx context.Context, c *call) outcome {
	var p sep.AttenuateParams
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	res, e := f.issuer().Attenuation(ctx, f.checks, c.principal, c.agent.cfg.Name, p, c.http.Header.Get(proxy.HeaderCapabilityToken))
	if e != nil {
		return fail(c.req.ID, e)
	}
	return answered(jsonrpc.NewResult(c.req.ID, res))
}

// attenuate mints a child of a verified, live parent, held by holder, and
// indexes it.
func (f *Front) attenuate(ctx context.Context, parent *captoken.Claims, rec *capindex.Record, cons sep.Constraints, holder string) (sep.Capability, *captoken.Claims, *jsonrpc.Error) {
	return f.issuer().Attenuate(ctx, parent, rec, cons, holder)
}

// displayNames returns the handle display names of a capability
// (issue.Issuer.DisplayNames).
func (f *Front) displayNames(ctx context.Context, c *captoken.Claims, rec *capindex.Record) map[string]string {
	return f.issuer().DisplayNames(ctx, c, rec)
}
