package a2afront

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// The capability extension's members a caller may attach to a send or an
// invocation.
const (
	memberCapabilityID    = "capabilityId"
	memberCapabilityToken = "capabilityToken"
	memberCapabilities    = "capabilities"
	memberAttenuations    = "attenuations"
	// memberSkill names the skill a message to a gated agent asks for.
	memberSkill = "skill"
)

// extensionMembers are the members extensionData collects.
func extensionMembers() []string {
	return []string{memberCapabilityID, memberCapabilityToken, memberCapabilities, memberAttenuations, memberSkill}
}

// Where a member was found. A stock A2A SDK cannot add members to params,
// but it carries metadata, and A2A's own place for an extension's data is
// metadata keyed by the extension's URI, on the request or on the message.
const (
	inParams          = "params"
	inParamsMetadata  = "params.metadata"
	inMessageMetadata = "params.message.metadata"
)

// extData is the extension's data of one call, wherever the caller put it.
type extData struct {
	// Members holds each member found, by name, as sent.
	Members map[string]json.RawMessage
	// Where names the place each member was found (the first, when the
	// same value was sent in several).
	Where map[string]string
}

// Has reports whether member was sent.
func (x extData) Has(member string) bool {
	_, ok := x.Members[member]
	return ok
}

// String returns a member that must be a JSON string; "" when absent.
func (x extData) String(member string) (string, *jsonrpc.Error) {
	raw, ok := x.Members[member]
	if !ok {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", invalidMember(memberPath(x.Where[member], member), member+" must be a string", nil)
	}
	return s, nil
}

// capability returns the capability the call names in its extension data
// (capabilityId, capabilityToken as sent) and the token presented with the
// call: the one sent, or the one in the A2A-Capability header; both may be
// sent only when they agree.
func (x extData) capability(r *http.Request) (id, sent, presented string, e *jsonrpc.Error) {
	if id, e = x.String(memberCapabilityID); e != nil {
		return "", "", "", e
	}
	if sent, e = x.String(memberCapabilityToken); e != nil {
		return "", "", "", e
	}
	presented, e = presentedToken(r, sent)
	return id, sent, presented, e
}

// memberPath is the path of the extension's member name found in where:
// params.capabilityId, or under the extension's URI in a metadata.
func memberPath(where, name string) string {
	if where == inParams {
		return where + "." + name
	}
	return where + "[\"" + agentcard.ExtensionURI + "\"]." + name
}

// refuseDelegation refuses delegation members on a call that is not a
// send: capabilities are delegated with a send, nowhere else.
func (x extData) refuseDelegation() *jsonrpc.Error {
	for _, name := range []string{memberCapabilities, memberAttenuations} {
		if x.Has(name) {
			return invalidMember(memberPath(x.Where[name], name), "capabilities are delegated with a send, not with this call", nil)
		}
	}
	return nil
}

// extensionData collects the extension's members of a call from the three
// places they may be: params itself (as the SEP's own examples put them),
// params.metadata[<extension URI>] and params.message.metadata[<extension
// URI>]. The same strictness applies everywhere: a case variant of a
// member name is refused (an agent decoding with encoding/json would read
// it as the member), and a member sent in two places must be the same
// value there, or the call is refused: there is one place of truth.
func extensionData(params map[string]json.RawMessage) (extData, *jsonrpc.Error) {
	x := extData{Members: map[string]json.RawMessage{}, Where: map[string]string{}}
	places := []struct {
		name    string
		members map[string]json.RawMessage
	}{{inParams, params}}
	for _, p := range []struct{ name, path string }{{inParamsMetadata, ""}, {inMessageMetadata, "message"}} {
		m, e := extensionObject(params, p.path)
		if e != nil {
			return x, e
		}
		places = append(places, struct {
			name    string
			members map[string]json.RawMessage
		}{p.name, m})
	}
	for _, p := range places {
		at := strings.TrimSuffix(memberPath(p.name, ""), ".")
		if e := refuseCaseVariants(p.members, at, p.name+" member", extensionMembers()...); e != nil {
			return x, e
		}
		for _, name := range extensionMembers() {
			raw, ok := p.members[name]
			if !ok {
				continue
			}
			if prev, seen := x.Members[name]; seen && !sameJSON(prev, raw) {
				return x, invalidMember(memberPath(p.name, name), name+" differs between "+x.Where[name]+" and "+p.name, nil)
			} else if !seen {
				x.Members[name], x.Where[name] = raw, p.name
			}
		}
	}
	return x, nil
}

// extensionObject returns metadata[<extension URI>] of params (path "") or
// of params.message (path "message"), nil when absent. metadata and the
// extension's entry must be objects, and their names are held to the same
// case rule as the members.
func extensionObject(params map[string]json.RawMessage, path string) (map[string]json.RawMessage, *jsonrpc.Error) {
	holder := params
	where := "params"
	if path != "" {
		raw, ok := params[path]
		if !ok {
			return nil, nil
		}
		where += "." + path
		// A fresh map: decoding into params itself would merge the
		// message's members into params.
		holder = nil
		if json.Unmarshal(raw, &holder) != nil {
			// Not an object: not ours to judge; the agent refuses it.
			return nil, nil
		}
	}
	if e := refuseCaseVariants(holder, where, where+" member", "metadata"); e != nil {
		return nil, e
	}
	raw, ok := holder["metadata"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var md map[string]json.RawMessage
	if json.Unmarshal(raw, &md) != nil {
		return nil, invalidMember(where+".metadata", where+".metadata must be an object", nil)
	}
	if e := refuseCaseVariants(md, where+".metadata", where+".metadata key", agentcard.ExtensionURI); e != nil {
		return nil, e
	}
	ext, ok := md[agentcard.ExtensionURI]
	if !ok {
		return nil, nil
	}
	var out map[string]json.RawMessage
	if json.Unmarshal(ext, &out) != nil {
		return nil, invalidMember(where+".metadata[\""+agentcard.ExtensionURI+"\"]", where+".metadata[\""+agentcard.ExtensionURI+"\"] must be an object", nil)
	}
	return out, nil
}

// sameJSON reports whether a and b are the same JSON text but for
// insignificant whitespace.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
