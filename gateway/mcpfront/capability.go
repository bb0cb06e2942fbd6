package mcpfront

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/gateway/proxy"
)

// A caller presents a capability in params._meta["dev.capgate/capability"]
// ({capabilityId} or {capabilityToken}) or as a token in the
// A2A-Capability header. Neither ever reaches the server: the proxy drops
// the header, and the front takes the _meta member out of the params it
// forwards.

// members are a call's params, member by member, as the front forwards
// them once it has changed what it must.
type members map[string]json.RawMessage

// takeCapability reads a call's params, which Decode checked, and takes
// the presented capability out of their _meta. A member or _meta key that
// differs from the front's names only in case is refused: a server
// reading it as the real one would act on what the front never saw.
// Params of the common, plain shape are read by a scan (scanCapability),
// every other by decoding them (decodeCapability), which words every
// refusal.
func takeCapability(req jsonrpc.Request) (members, mcp.PresentedCapability, *jsonrpc.Error) {
	if req.ParamsChecked() {
		if m, pc, ok := scanCapability(req.Params); ok {
			return m, pc, nil
		}
	}
	return decodeCapability(req.Params)
}

// decodeCapability is takeCapability by decoding the params.
func decodeCapability(params json.RawMessage) (members, mcp.PresentedCapability, *jsonrpc.Error) {
	var none mcp.PresentedCapability
	m := members{}
	if len(params) == 0 {
		return m, none, nil
	}
	if params[0] != '{' || json.Unmarshal(params, &m) != nil {
		return nil, none, invalidParams("params must be an object")
	}
	if e := wireError(enforce.RefuseCaseVariants(m, "params", "params member", []string{"_meta", "name", "arguments"})); e != nil {
		return nil, none, e
	}
	raw, ok := m["_meta"]
	if !ok {
		return m, none, nil
	}
	meta := map[string]json.RawMessage{}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &meta) != nil {
		return nil, none, invalidParams("params._meta must be an object")
	}
	if e := wireError(enforce.RefuseCaseVariants(meta, "params._meta", "_meta key", []string{mcp.MetaCapability})); e != nil {
		return nil, none, e
	}
	pcRaw, ok := meta[mcp.MetaCapability]
	if !ok {
		return m, none, nil
	}
	var pc mcp.PresentedCapability
	if err := jsonrpc.UnmarshalParams(pcRaw, &pc); err != nil {
		return nil, none, invalidParams("params._meta[\"" + mcp.MetaCapability + "\"] must be {capabilityId} or {capabilityToken}")
	}
	delete(meta, mcp.MetaCapability)
	if len(meta) == 0 {
		delete(m, "_meta")
	} else {
		m["_meta"] = encode(meta)
	}
	return m, pc, nil
}

// presented is the capability a call presents: pc from its _meta, and
// the token of the A2A-Capability header, which must agree with pc's
// token when both are sent.
func presented(r *http.Request, pc mcp.PresentedCapability) (id, token string, e *jsonrpc.Error) {
	h := strings.TrimSpace(r.Header.Get(proxy.HeaderCapabilityToken))
	switch {
	case pc.CapabilityToken == "":
		return pc.CapabilityID, h, nil
	case h != "" && h != pc.CapabilityToken:
		return "", "", &jsonrpc.Error{Code: jsonrpc.CodeCapabilityInvalid,
			Message: "the capability token in the A2A-Capability header differs from the one in params._meta",
			Data:    map[string]any{"reason": jsonrpc.ReasonCapabilityInvalid}}
	}
	return pc.CapabilityID, pc.CapabilityToken, nil
}

// noCapabilityIn refuses a capability presented in the _meta of a call
// forwarded as it came: its bytes would carry the token upstream.
func noCapabilityIn(req jsonrpc.Request) *jsonrpc.Error {
	_, pc, e := takeCapability(req)
	switch {
	case e != nil:
		return e
	case pc != (mcp.PresentedCapability{}):
		return invalidParams("a capability is presented on tools/call, tools/list, resources/read and resources/list only")
	}
	return nil
}

// noCapabilityInResponse refuses a client's response to a server's
// request that carries a capability under _meta[MetaCapability], at any
// depth: the response is forwarded as it came, and its bytes would carry
// the token to the server. raw passed the strict codec.
func noCapabilityInResponse(raw []byte) *jsonrpc.Error {
	var v any
	if json.Unmarshal(raw, &v) != nil || holdsCapability(v) {
		return invalidParams("a response to a server carries no capability (_meta." + mcp.MetaCapability + ")")
	}
	return nil
}

// holdsCapability reports whether the decoded JSON value v has, at any
// depth, an object with a member named mcp.MetaCapability.
func holdsCapability(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			if k == mcp.MetaCapability || holdsCapability(inner) {
				return true
			}
		}
	case []any:
		for _, inner := range v {
			if holdsCapability(inner) {
				return true
			}
		}
	}
	return false
}

// wireError puts a decision's refusal on the wire: the code its reason
// stands for, its message, and its members beside the reason.
func wireError(r *enforce.Refusal) *jsonrpc.Error {
	if r == nil {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeOf(string(r.Reason)), Message: r.Message, Data: r.Members()}
}

// invalidParams is -32602 with the stable reason and msg as the message.
func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: map[string]any{"reason": jsonrpc.ReasonInvalidParams}}
}

// encode encodes a value built from checked JSON, which always encodes.
func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpfront: " + err.Error())
	}
	return b
}
