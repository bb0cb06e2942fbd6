package agentcard

import (
	"fmt"
	"sort"
	"strconv"
)

// object is what capgate knows of one JSON object of a card: the names of
// the members it keeps, each with what it knows of the member's value.
type object map[string]value

// value is what capgate knows of a member's value: nothing (it is kept
// whole), the members of the object it is, or, with list, the members of
// each object in the list it is.
type value struct {
	object object
	list   bool
}

// cardMembers is every member of an agent card that capgate knows, by its
// exact JSON name: the AgentCard of A2A v0.3 (a2a-go v0.3.3, a2a/agent.go)
// and of A2A v1.0 (a2a.proto v1.0.0, as package cardsig reads it), the
// members the AgentCard capability contract adds (capability_tiers,
// min/max_protocol_version, protocol_versions and the tier flags), and
// the capability-negotiation SEP's capabilityGrants.
//
// The proto names a v1.0 parser also accepts (supported_interfaces,
// security_schemes, ...) are not among them: the served card writes each
// member under its JSON name only. Neither are the members a card's
// extensions would add: a card cannot say which members an extension
// owns, so the extensions a card declares are kept (capabilities.
// extensions, with their params whole) and nothing else of them.
func cardMembers() object {
	// whole is a value kept as it is: a string, a boolean, a list of
	// strings, or an object whose members are data (an extension's params).
	var whole value
	iface := value{list: true, object: object{
		"url": whole, "protocolBinding": whole, "protocolVersion": whole, "tenant": whole, // v1.0
		"transport":         whole, // v0.3
		"protocol_versions": whole, // the contract
	}}
	skill := value{list: true, object: object{
		"id": whole, "name": whole, "description": whole, "tags": whole, "examples": whole,
		"inputModes": whole, "outputModes": whole,
		"security": whole, "securityRequirements": whole, // removed by Rewrite
	}}
	capabilities := object{
		"streaming": whole, "pushNotifications": whole, "stateTransitionHistory": whole, "extendedAgentCard": whole,
		"extensions": {list: true, object: object{"uri": whole, "description": whole, "required": whole, "params": whole}},
	}
	for _, name := range append(DeclaredCapabilities(), DeprecatedCapabilities()...) {
		capabilities[name] = whole
	}
	return object{
		"name": whole, "description": whole, "version": whole, "iconUrl": whole, "documentationUrl": whole,
		"provider":     {object: object{"organization": whole, "url": whole}},
		"capabilities": {object: capabilities},
		"skills":       skill, "defaultInputModes": whole, "defaultOutputModes": whole,
		"supportedInterfaces": iface, "additionalInterfaces": iface,
		"url": whole, "preferredTransport": whole, "protocolVersion": whole,
		"supportsAuthenticatedExtendedCard": whole,
		"securitySchemes":                   whole, "security": whole, "securityRequirements": whole, "signatures": whole,
		MemberTiers: whole, MemberMinProtocolVersion: whole, MemberMaxProtocolVersion: whole,
		"capabilityGrants": whole,
	}
}

// maxDroppedNamed bounds how many dropped members known names.
const maxDroppedNamed = 32

// known returns a copy of card with only the members capgate knows
// (cardMembers), at every depth it knows, and the paths of the members it
// dropped, at most maxDroppedNamed of them, in order, then a count of the
// rest; a dropped name is quoted in ASCII, so that a look-alike such as
// "\u017fignatures" shows what it is. A known member whose value has another shape than the one known
// (a string where an object is known) is kept as it is: the checks that
// read it refuse it. card is not modified.
func known(card map[string]any) (map[string]any, []string) {
	var dropped []string
	out := keepObject(card, cardMembers(), "", &dropped)
	if n := len(dropped); n > maxDroppedNamed {
		dropped = append(dropped[:maxDroppedNamed], fmt.Sprintf("and %d more", n-maxDroppedNamed))
	}
	return out, dropped
}

func keepObject(in map[string]any, members object, path string, dropped *[]string) map[string]any {
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]any, len(in))
	for _, k := range names {
		v, ok := members[k]
		if !ok {
			*dropped = append(*dropped, path+strconv.QuoteToASCII(k))
			continue
		}
		out[k] = keepValue(in[k], v, path+k, dropped)
	}
	return out
}

func keepValue(x any, v value, path string, dropped *[]string) any {
	if v.object == nil {
		return x
	}
	if !v.list {
		if m, ok := x.(map[string]any); ok {
			return keepObject(m, v.object, path+".", dropped)
		}
		return x
	}
	list, ok := x.([]any)
	if !ok {
		return x
	}
	out := make([]any, len(list))
	for i, e := range list {
		if m, ok := e.(map[string]any); ok {
			out[i] = keepObject(m, v.object, fmt.Sprintf("%s[%d].", path, i), dropped)
		} else {
			out[i] = e
		}
	}
	return out
}
