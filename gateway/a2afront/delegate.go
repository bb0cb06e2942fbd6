package a2afront

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
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
)

// EventDelegate is the audit event of a delegated send.
const EventDelegate = "capability.delegate"

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
// capabilities (in params, or in params.metadata or message.metadata under
// the extension's URI) is a delegation: the receiving agent gets
// attenuated children bound to its own identity instead of the caller's
// capabilities, in the place the caller put them.
// Every send is refused before anything is forwarded when the receiving
// agent's card cannot serve it.
func (f *Front) send(ctx context.Context, c *call) outcome {
	var params map[string]json.RawMessage
	if len(c.req.Params) > 0 && json.Unmarshal(c.req.Params, &params) != nil {
		return fail(c.req.ID, invalidMember("params", "params must be an object", nil))
	}
	x, e := extensionData(params)
	if e != nil {
		return fail(c.req.ID, e)
	}
	delegated := x.Has(memberCapabilities)
	if e := f.hopCheck(ctx, c, delegated); e != nil {
		return fail(c.req.ID, e)
	}
	if !delegated && x.Has(memberAttenuations) {
		return fail(c.req.ID, invalidMember(memberPath(x.Where[memberAttenuations], memberAttenuations), "attenuations without capabilities", nil))
	}
	if gated(c.agent) {
		if e := f.gateSend(ctx, c, x, params); e != nil {
			return fail(c.req.ID, e)
		}
	}
	relayPush, e := f.sendPush(ctx, c, params)
	if e != nil {
		return fail(c.req.ID, e)
	}
	if len(x.Members) == 0 && c.scope == nil && relayPush == nil {
		return forwardAs(c)
	}
	// The extension's data never reaches the agent as sent: a capability
	// named on a send authorises nothing there, and a token is a bearer
	// credential. A delegation's children are put back in its place.
	params = delegatedParams(params, "", nil)
	if c.scope != nil {
		if e := scopeMessage(c, params); e != nil {
			f.auditMessage(ctx, c, c.scope.Claims, "", "", e)
			return fail(c.req.ID, e)
		}
	}
	if relayPush != nil {
		relayPush()
	}
	if !delegated {
		return outcome{forward: encodeRequest(c.req.ID, c.req.Method, params), cc: callerContext(c)}
	}
	children, e := f.delegateAll(ctx, c, x)
	if e != nil {
		return fail(c.req.ID, e)
	}
	body := encodeRequest(c.req.ID, c.req.Method, delegatedParams(params, x.Where[memberCapabilities], children))
	return outcome{forward: body, cc: &proxy.Context{Principal: c.principal.ID, Holder: c.agent.cfg.Principal}}
}

// delegateAll mints one child per delegated capability, attenuated as
// asked and held by the receiving agent. Either every child is minted or
// nothing is forwarded. x holds the extension's members of the send,
// wherever the caller put them.
func (f *Front) delegateAll(ctx context.Context, c *call, x extData) ([]sep.Capability, *jsonrpc.Error) {
	var refs []delegatedRef
	var atts map[string]sep.Constraints
	capsAt, attsAt := memberPath(x.Where[memberCapabilities], memberCapabilities), memberPath(x.Where[memberAttenuations], memberAttenuations)
	if json.Unmarshal(x.Members[memberCapabilities], &refs) != nil || len(refs) == 0 || len(refs) > sep.MaxDelegated {
		return nil, invalidMember(capsAt, "capabilities must list 1 to 16 capability ids the caller holds", nil)
	}
	if raw, ok := x.Members[memberAttenuations]; ok && jsonrpc.UnmarshalParams(raw, &atts) != nil {
		return nil, invalidMember(attsAt, "attenuations must map capability ids to operations, resourceHandles and expires", nil)
	}
	holder := c.agent.cfg.Principal
	if holder == "" {
		return nil, capErr(jsonrpc.CodeAttenuationNotPermitted, "agent "+c.agent.cfg.Name+" has no configured identity to delegate to", nil)
	}
	for id := range atts {
		if !containsRef(refs, id) {
			return nil, invalidMember(attsAt+"[\""+id+"\"]", "attenuation for a capability that is not delegated: "+id, nil)
		}
	}
	if e := f.limit(ctx, c, ratelimit.Attenuate, len(refs)); e != nil {
		return nil, e
	}
	children := make([]sep.Capability, 0, len(refs))
	for _, ref := range refs {
		parent, rec, e := f.usableFor(ctx, c, ref)
		if e == nil {
			var child sep.Capability
			var claims *captoken.Claims
			child, claims, e = f.attenuate(ctx, parent, rec, atts[ref.ID], holder)
			f.auditDelegate(ctx, c, parent, claims, e)
			if e == nil {
				f.recordLive(ctx, c, claims.CapabilityID, claims.Expiry.Time())
			}
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
func (f *Front) usableFor(ctx context.Context, c *call, ref delegatedRef) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	return f.usable(ctx, c.principal, "", ref.ID, ref.Token)
}

func containsRef(refs []delegatedRef, id string) bool {
	for _, r := range refs {
		if r.ID == id {
			return true
		}
	}
	return false
}

func (f *Front) auditDelegate(ctx context.Context, c *call, parent, child *captoken.Claims, e *jsonrpc.Error) {
	decision := "delegated"
	if e != nil {
		decision = reasonOf(e)
	}
	attrs := []slog.Attr{slog.String("caller", c.principal.ID), slog.String("to_agent", c.agent.cfg.Name),
		slog.String("decision", decision)}
	if parent != nil {
		attrs = append(attrs, slog.String("parent_capability_id", parent.CapabilityID))
	}
	f.audit(ctx, EventDelegate, append(attrs, claimAttrs(child)...)...)
}

// delegatedParams returns the params forwarded in place of a delegated
// send's. The extension's members the caller sent (capability ids,
// tokens, attenuations) are removed from every place they may be: params
// itself, params.metadata[<extension URI>] and
// params.message.metadata[<extension URI>]. The minted children are then
// put where the caller put its capabilities, so an agent reading the
// extension's data from metadata finds them there, and one reading
// params.capabilities finds them there. Nothing else of the caller's
// extension entry reaches the agent. With no place (where == "") nothing
// is put back: the extension's data is only removed.
func delegatedParams(params map[string]json.RawMessage, where string, children []sep.Capability) map[string]json.RawMessage {
	entry := encodeChildren(children)
	for _, m := range extensionMembers() {
		delete(params, m)
	}
	var inParamsMD, inMessageMD json.RawMessage
	switch where {
	case inParams:
		params[memberCapabilities] = entry[memberCapabilities]
	case inParamsMetadata:
		inParamsMD = encodeObject(entry)
	case inMessageMetadata:
		inMessageMD = encodeObject(entry)
	}
	setMetadataEntry(params, inParamsMD)
	if raw, ok := params["message"]; ok {
		var msg map[string]json.RawMessage
		if json.Unmarshal(raw, &msg) == nil && msg != nil {
			setMetadataEntry(msg, inMessageMD)
			params["message"] = encodeObject(msg)
		}
	}
	return params
}

// setMetadataEntry replaces the extension's entry in holder.metadata with
// entry, or removes it when entry is nil. A metadata object left empty is
// removed. extensionData has already held metadata to being an object
// under its exact name.
func setMetadataEntry(holder map[string]json.RawMessage, entry json.RawMessage) {
	var md map[string]json.RawMessage
	if raw, ok := holder["metadata"]; ok {
		_ = json.Unmarshal(raw, &md)
	}
	if md == nil {
		if entry == nil {
			return
		}
		md = map[string]json.RawMessage{}
	}
	delete(md, agentcard.ExtensionURI)
	if entry != nil {
		md[agentcard.ExtensionURI] = entry
	}
	if len(md) == 0 {
		delete(holder, "metadata")
		return
	}
	holder["metadata"] = encodeObject(md)
}

// encodeChildren is the extension's entry that carries the minted
// children to the receiving agent.
func encodeChildren(children []sep.Capability) map[string]json.RawMessage {
	b, err := json.Marshal(children)
	if err != nil {
		panic("a2a front: minted capabilities do not encode: " + err.Error())
	}
	return map[string]json.RawMessage{memberCapabilities: b}
}

// encodeObject encodes an object of raw members, which always encodes.
func encodeObject(m map[string]json.RawMessage) json.RawMessage {
	b, err := json.Marshal(m)
	if err != nil {
		panic("a2a front: " + err.Error())
	}
	return b
}
