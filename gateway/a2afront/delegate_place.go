package a2afront

import (
	"encoding/json"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/sep"
)

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
