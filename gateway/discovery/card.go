package discovery

import (
	"slices"

	"github.com/capgate/capgate/gateway/agentcard"
)

// What the snapshot takes from the upstream card. Only named members of
// the expected type are read; the upstream's own url (an internal address)
// and anything else are never copied.

// identity describes the agent: the card's name, description, version,
// provider and documentation URL, and in metadata the gateway's name and
// URL for it and the card's protocol versions.
func identity(in *Input) *IdentityCapabilities {
	id := &IdentityCapabilities{
		Name:             str(in.Card, "name"),
		Description:      str(in.Card, "description"),
		Version:          str(in.Card, "version"),
		DocumentationURL: str(in.Card, "documentationUrl"),
		Metadata:         map[string]any{"agent": in.Agent},
	}
	if id.Name == "" {
		id.Name = in.Agent
	}
	if p, ok := in.Card["provider"].(map[string]any); ok {
		id.Provider = str(p, "organization")
	}
	if in.PublicURL != "" {
		id.Metadata["url"] = in.PublicURL
	}
	for key, member := range map[string]string{
		"protocolVersion":    "protocolVersion",
		"minProtocolVersion": agentcard.MemberMinProtocolVersion,
		"maxProtocolVersion": agentcard.MemberMaxProtocolVersion,
	} {
		if v := str(in.Card, member); v != "" {
			id.Metadata[key] = v
		}
	}
	return id
}

// transport reports the card's streaming and pushNotifications flags when
// it declares them as booleans; nil when it declares neither.
func transport(card map[string]any) *TransportCapabilities {
	caps, _ := card["capabilities"].(map[string]any)
	t := &TransportCapabilities{}
	if v, ok := caps["streaming"].(bool); ok {
		t.Streaming = ptr(v)
	}
	if v, ok := caps["pushNotifications"].(bool); ok {
		t.PushNotifications = ptr(v)
	}
	if t.Streaming == nil && t.PushNotifications == nil {
		return nil
	}
	return t
}

// output reports the card's defaultOutputModes as MIME types.
func output(card map[string]any) *OutputCapabilities {
	modes, _ := card["defaultOutputModes"].([]any)
	var types []string
	for _, m := range modes {
		if s, ok := m.(string); ok && s != "" && !slices.Contains(types, s) {
			types = append(types, s)
		}
	}
	if len(types) == 0 {
		return nil
	}
	return &OutputCapabilities{SupportedMimeTypes: types}
}

// skillDescription is the card's description of a skill, or a sentence
// naming its operation.
func skillDescription(in *Input, skill string) string {
	skills, _ := in.Card["skills"].([]any)
	for _, s := range skills {
		m, _ := s.(map[string]any)
		if str(m, "id") == skill {
			if d := str(m, "description"); d != "" {
				return d
			}
		}
	}
	if op, ok := in.Skills[skill]; ok {
		return "Performs the " + op + " operation (a2a/skill/invoke with a capabilityId)."
	}
	return "Invoked with a2a/skill/invoke."
}

// str returns m[key] when it is a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
