package a2afront

import "github.com/capgate/capgate/gateway/jsonrpc"

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
