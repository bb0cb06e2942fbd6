package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/policy"
)

// EventDelegate is the audit event of a delegated send.
const EventDelegate = "capability.delegate"

// maxDelegated bounds the capabilities one send may delegate.
const maxDelegated = 16

// delegatedRef is one entry of params.capabilities: a capability id, or
// an object with the id and optionally the token.
type delegatedRef struct {
	ID    string
	Token string
}

func (d *delegatedRef) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &d.ID); err == nil {
		return nil
	}
	var obj struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	if err := json.Unmarshal(b, &obj); err != nil || obj.ID == "" {
		return errors.New("each capability is an id or an object with an id")
	}
	d.ID, d.Token = obj.ID, obj.Token
	return nil
}

// send handles the standard sends and a2a/task/send. A send that carries
// capabilities is a delegation: the receiving agent gets attenuated
// children bound to its own identity instead of the caller's capabilities.
// Every send is refused before anything is forwarded when the receiving
// agent's card cannot serve it.
func (g *Gateway) send(ctx context.Context, c *call) outcome {
	var params map[string]json.RawMessage
	if len(c.req.Params) > 0 && json.Unmarshal(c.req.Params, &params) != nil {
		return fail(c.req.ID, capErr(jsonrpc.CodeInvalidParams, "params must be an object", nil))
	}
	if e := refuseCaseVariants(params, "params member", "capabilities", "attenuations"); e != nil {
		return fail(c.req.ID, e)
	}
	_, delegated := params["capabilities"]
	if e := g.hopCheck(ctx, c, delegated); e != nil {
		return fail(c.req.ID, e)
	}
	if !delegated {
		if _, ok := params["attenuations"]; ok {
			return fail(c.req.ID, capErr(jsonrpc.CodeInvalidParams, "attenuations without capabilities", nil))
		}
		return outcome{forward: c.req.Raw, cc: callerContext(c)}
	}
	children, e := g.delegateAll(ctx, c, params)
	if e != nil {
		return fail(c.req.ID, e)
	}
	params["capabilities"] = mustMarshal(children)
	delete(params, "attenuations")
	body := mustMarshal(map[string]any{"jsonrpc": "2.0", "id": c.req.ID, "method": c.req.Method, "params": params})
	return outcome{forward: body, cc: &proxy.Context{Principal: c.principal.ID, Holder: c.agent.cfg.Principal}}
}

// delegateAll mints one child per delegated capability, attenuated as
// asked and held by the receiving agent. Either every child is minted or
// nothing is forwarded.
func (g *Gateway) delegateAll(ctx context.Context, c *call, params map[string]json.RawMessage) ([]capability, *jsonrpc.Error) {
	var refs []delegatedRef
	var atts map[string]constraints
	if json.Unmarshal(params["capabilities"], &refs) != nil || len(refs) == 0 || len(refs) > maxDelegated {
		return nil, capErr(jsonrpc.CodeInvalidParams, "capabilities must list 1 to 16 capability ids the caller holds", nil)
	}
	if raw, ok := params["attenuations"]; ok && jsonrpc.UnmarshalParams(raw, &atts) != nil {
		return nil, capErr(jsonrpc.CodeInvalidParams, "attenuations must map capability ids to operations, resourceHandles and expires", nil)
	}
	holder := c.agent.cfg.Principal
	if holder == "" {
		return nil, capErr(jsonrpc.CodeAttenuationNotPermitted, "agent "+c.agent.cfg.Name+" has no configured identity to delegate to", nil)
	}
	for id := range atts {
		if !containsRef(refs, id) {
			return nil, capErr(jsonrpc.CodeInvalidParams, "attenuation for a capability that is not delegated: "+id, nil)
		}
	}
	children := make([]capability, 0, len(refs))
	for _, ref := range refs {
		parent, rec, e := g.usableFor(ctx, c, ref)
		if e == nil {
			var child capability
			var claims *captoken.Claims
			child, claims, e = g.attenuate(ctx, parent, rec, atts[ref.ID], holder)
			g.auditDelegate(ctx, c, parent, claims, e)
			children = append(children, child)
		}
		if e != nil {
			return nil, e
		}
	}
	return children, nil
}

// usableFor loads a delegated capability. Its audience is the agent it
// designates resources of, not the agent receiving the send, so the
// audience is checked against the configured agents instead.
func (g *Gateway) usableFor(ctx context.Context, c *call, ref delegatedRef) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	return g.usableAt(ctx, c, "", ref.ID, ref.Token)
}

func containsRef(refs []delegatedRef, id string) bool {
	for _, r := range refs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// hopCheck validates the receiving agent's card before anything is
// forwarded: the protocol version range against the caller's A2A-Version
// (or the default), and the capabilities the call needs (streaming, push
// notifications, the capability extension for a delegation unless policy
// explicitly allows legacy ambient authority for that agent). A card that
// cannot be fetched refuses the call: the gateway never forwards a hop it
// could not validate.
func (g *Gateway) hopCheck(ctx context.Context, c *call, delegated bool) *jsonrpc.Error {
	_, card, err := c.agent.card.Card(ctx)
	if err != nil {
		g.logger.WarnContext(ctx, "agent card unavailable; refusing the hop", "agent", c.agent.cfg.Name, "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent's card is unavailable; the call was not forwarded",
			Data: map[string]string{"reason": "card_unavailable"}}
	}
	version := c.http.Header.Get("A2A-Version")
	if version == "" {
		version = defaultProtocolVersion
	}
	need := agentcard.Requirements{ProtocolVersion: version, Capabilities: agentcard.RequirementsFor(c.req.Method, delegated)}
	if delegated && !agentcard.UnderstandsCapabilities(card) {
		need.AllowLegacyAmbient = g.caps.Policy.Current().DecideAmbient(ctx, policy.AmbientInput{
			Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name, Method: c.canonical, Now: g.now(),
		}).Allow
	}
	return hopError(agentcard.Validate(card, need))
}

// defaultProtocolVersion is the A2A version assumed when the caller sends
// no A2A-Version header.
const defaultProtocolVersion = "0.3"

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

func (g *Gateway) auditDelegate(ctx context.Context, c *call, parent, child *captoken.Claims, e *jsonrpc.Error) {
	decision := "delegated"
	if e != nil {
		decision = reasonOf(e)
	}
	attrs := []slog.Attr{slog.String("caller", c.principal.ID), slog.String("to_agent", c.agent.cfg.Name),
		slog.String("decision", decision)}
	if parent != nil {
		attrs = append(attrs, slog.String("parent_capability_id", parent.CapabilityID))
	}
	g.audit(ctx, EventDelegate, append(attrs, claimAttrs(child)...)...)
}
