package a2afront

import (
	"context"
	"errors"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// hopCheck validates the receiving agent's card before anything is
// forwarded: the version the call speaks (its A2A-Version header, or its
// method name's own generation) against the versions the card declares, and the capabilities the call needs (streaming, push
// notifications, the capability extension for a delegation unless policy
// explicitly allows legacy ambient authority for that agent). A card that
// cannot be fetched refuses the call: the gateway never forwards a hop it
// could not validate.
func (f *Front) hopCheck(ctx context.Context, c *call, delegated bool) *jsonrpc.Error {
	_, card, err := c.agent.card.Card(ctx)
	if err != nil {
		f.deps.Logger.WarnContext(ctx, "agent card unavailable; refusing the hop", "agent", c.agent.cfg.Name, "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent's card is unavailable; the call was not forwarded",
			Data: map[string]string{"reason": "card_unavailable"}}
	}
	method, header := upstreamCall(card, c)
	if err := agentcard.CheckMethod(card, method, header); err != nil {
		return hopError(err)
	}
	version := agentcard.SpokenVersion(method, header)
	need := agentcard.Requirements{ProtocolVersion: version, Capabilities: agentcard.RequirementsFor(c.req.Method, delegated)}
	if delegated && !agentcard.UnderstandsCapabilities(card) {
		need.AllowLegacyAmbient = f.deps.Policy.Current().DecideAmbient(ctx, policy.AmbientInput{
			Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name, Method: c.canonical, Now: f.deps.Now(),
		}).Allow
	}
	return hopError(agentcard.Validate(card, need))
}

// versionCheck refuses a call whose method generation or A2A-Version the
// agent's card does not support, for the methods that need nothing else
// from the card (tasks/get, tasks/cancel, …). It uses the card the gateway
// holds, fetching it first when it holds none (the same fetch translation
// would make), so the very first call to an agent is checked like every
// later one. A card that cannot be fetched leaves these reads to the
// agent; sends, streams and push configuration are refused then
// (hopCheck).
func versionCheck(ctx context.Context, c *call) *jsonrpc.Error {
	card := c.agent.card.Cached()
	if card == nil {
		_, card, _ = c.agent.card.Card(ctx)
	}
	if card == nil {
		return nil
	}
	method, header := upstreamCall(card, c)
	return hopError(agentcard.CheckMethod(card, method, header))
}

// A2A's own error codes for a hop the agent cannot serve.
const (
	codeUnsupportedOperation = -32004
	codeVersionNotSupported  = -32009
)

func hopError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	data := map[string]any{"reason": agentcard.Reason(err), "detail": err.Error()}
	var vm *agentcard.VersionMismatchError
	var mc *agentcard.MissingCapabilityError
	switch {
	case errors.As(err, &vm):
		data["wanted"], data["min"], data["max"] = vm.Wanted, vm.Min, vm.Max
		return &jsonrpc.Error{Code: codeVersionNotSupported, Message: "the agent does not support this protocol version", Data: data}
	case errors.As(err, &mc):
		data["capability"], data["missing"] = mc.Capability, mc.Missing
		return &jsonrpc.Error{Code: codeUnsupportedOperation, Message: "the agent does not declare " + mc.Capability, Data: data}
	}
	return &jsonrpc.Error{Code: codeUnsupportedOperation, Message: "the agent's card cannot serve this call", Data: data}
}
