package a2afront

import (
	"encoding/json"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// invocationCapability reads the capability an invocation names from
// wherever the caller put it (params, or params.metadata under the
// extension's URI), sets p.CapabilityID and p.CapabilityToken to it, and
// returns the token presented with the call, in params or in the
// A2A-Capability header. Capabilities are delegated with a send, never
// with an invocation, so delegation members are refused here. plain
// says p came from plainInvokeParams, which admits no member but p's own:
// the capability is in p already and there is nothing to refuse.
func invocationCapability(c *call, p *sep.InvokeParams, plain bool) (string, *jsonrpc.Error) {
	if plain {
		return presentedToken(c.http, p.CapabilityToken)
	}
	if id, token, ok := plainInvocationCapability(c.req.Params); ok {
		p.CapabilityID, p.CapabilityToken = id, token
		return presentedToken(c.http, token)
	}
	return decodedInvocationCapability(c, p)
}

// decodedInvocationCapability is invocationCapability with params decoded.
func decodedInvocationCapability(c *call, p *sep.InvokeParams) (string, *jsonrpc.Error) {
	var params map[string]json.RawMessage
	if json.Unmarshal(c.req.Params, &params) != nil {
		return "", invalidMember("params", "params must be an object", nil)
	}
	x, e := extensionData(params)
	if e == nil {
		e = x.refuseDelegation()
	}
	if e != nil {
		return "", e
	}
	var presented string
	p.CapabilityID, p.CapabilityToken, presented, e = x.capability(c.http)
	return presented, e
}
