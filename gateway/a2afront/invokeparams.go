package a2afront

import (
	"encoding/json"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// The params of a2a/skill/invoke are decoded on every invocation, and
// through encoding/json (reflection, a copy of every argument, the exact
// member-name pass of jsonrpc.UnmarshalParams) that was the largest single
// cost of the decision. Almost every invocation has the same plain shape,
// so it is read by a scan instead, and anything else takes the strict
// decoder, which also words every refusal.

// invokeParams decodes an invocation's params strictly. plain says the
// params had the common shape (see plainInvokeParams): only the members
// skill, arguments, capabilityId and capabilityToken, so the capability
// is in params and nowhere else.
func invokeParams(req jsonrpc.Request) (p sep.InvokeParams, plain bool, err error) {
	if req.ParamsChecked() {
		if plainP, ok := plainInvokeParams(req.Params); ok {
			return plainP, true, nil
		}
	}
	err = req.UnmarshalParams(&p)
	return p, false, err
}

// plainInvokeParams decodes params that Decode already checked (valid
// JSON and UTF-8, no duplicate or case-variant names) when they have the
// common shape: an object whose keys are plain ASCII and exactly skill,
// arguments, capabilityId or capabilityToken; string values for the three
// strings; an object of plain-keyed members for arguments. It returns
// what jsonrpc.UnmarshalParams returns for the same bytes (a fuzz target
// compares the two), with the argument values sharing params' bytes, or
// ok false for anything else, which includes every refusal.
func plainInvokeParams(params []byte) (p sep.InvokeParams, ok bool) {
	ok = eachPlainMember(params, func(k, v []byte) (ok bool) {
		switch string(k) {
		case "skill":
			p.Skill, ok = plainString(v)
		case memberCapabilityID:
			p.CapabilityID, ok = plainString(v)
		case memberCapabilityToken:
			p.CapabilityToken, ok = plainString(v)
		case "arguments":
			p.Arguments, ok = plainArguments(v)
		}
		return ok
	})
	if !ok {
		return sep.InvokeParams{}, false
	}
	return p, true
}

// eachPlainMember calls fn with the key and value of every member of the
// JSON object obj, in order, and reports whether obj is an object whose
// keys are all plain ASCII (plainKey) and fn accepted every member. Keys
// are passed as written; fn returns false for a member it does not take.
func eachPlainMember(obj []byte, fn func(k, v []byte) bool) bool {
	it, isObject := jsonrpc.WalkObject(obj)
	if !isObject {
		return false
	}
	for m, more := it.Next(); more; m, more = it.Next() {
		if !jsonrpc.PlainName(m.Name) || !fn(m.Name, m.Value) {
			return false
		}
	}
	return true
}

// plainString decodes a value that must be a string literal; null and
// every other type are left to the strict decoder.
func plainString(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return jsonrpc.Unquote(v)
}

// plainArguments reads an object of plain-keyed members into a map of
// their values' text, as encoding/json decodes it into
// map[string]json.RawMessage; null and every other type are left to the
// strict decoder.
func plainArguments(v []byte) (map[string]json.RawMessage, bool) {
	args := make(map[string]json.RawMessage, 4)
	if !eachPlainMember(v, func(k, val []byte) bool { args[string(k)] = val; return true }) {
		return nil, false
	}
	return args, true
}

// plainInvocationCapability is invocationCapability's fast path, for the
// common invocation: params (a JSON object, already decoded once) whose
// keys are all plain ASCII, with no metadata and no message member, so
// that params itself is the only place the extension's members can be.
// It returns the capability id and token exactly as decoding params
// would, or ok false whenever the decoding path must decide, which
// includes every refusal.
func plainInvocationCapability(params []byte) (id, token string, ok bool) {
	it, isObject := jsonrpc.WalkObject(params)
	if !isObject {
		return "", "", false
	}
	names := extensionMembers()
	var idRaw, tokenRaw []byte
	for m, more := it.Next(); more; m, more = it.Next() {
		k, v := m.Name, m.Value
		if !jsonrpc.PlainName(k) || asciiEqualFold(k, "metadata") || string(k) == "message" {
			return "", "", false
		}
		for _, name := range names {
			if asciiEqualFold(k, name) && string(k) != name {
				return "", "", false // a case variant, refused there
			}
		}
		switch string(k) {
		case memberCapabilities, memberAttenuations:
			return "", "", false // refused there
		case memberCapabilityID:
			idRaw = v
		case memberCapabilityToken:
			tokenRaw = v
		}
	}
	id, idOK := optionalString(idRaw)
	token, tokenOK := optionalString(tokenRaw)
	return id, token, idOK && tokenOK
}

// optionalString decodes a member that must be a string: "" when absent.
func optionalString(raw []byte) (string, bool) {
	if raw == nil {
		return "", true
	}
	return jsonrpc.Unquote(raw)
}

// asciiEqualFold is strings.EqualFold for ASCII k and name.
func asciiEqualFold(k []byte, name string) bool {
	if len(k) != len(name) {
		return false
	}
	for i, c := range k {
		n := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= n && n <= 'Z' {
			n += 'a' - 'A'
		}
		if c != n {
			return false
		}
	}
	return true
}

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
