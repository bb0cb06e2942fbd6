package documents

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/a2aproject/a2a-go/a2a"
)

// CapabilityExtensionURI identifies the SEP capability-negotiation
// extension in an agent card's capabilities.extensions.
const CapabilityExtensionURI = "https://github.com/a2aproject/A2A/sep/capability-negotiation"

// The protocol version range both quickstart agents declare, as the card
// members min_protocol_version and max_protocol_version.
const (
	MinProtocolVersion = "0.1"
	MaxProtocolVersion = "1.0"
)

// ProtocolVersion is the card's protocolVersion: the A2A version of the
// a2asrv SDK that serves the standard methods.
const ProtocolVersion = "0.3.0"

// AgentVersion is the version both quickstart agents put in their cards.
const AgentVersion = "1.0.0"

// AgentName is the documents agent's card name.
const AgentName = "documents"

// CapabilityGrant is one entry of a card's capabilityGrants (SEP).
type CapabilityGrant struct {
	ID          string   `json:"id"`                 // grant id, e.g. "documents:read"
	Description string   `json:"description"`        // human-readable purpose
	Operations  []string `json:"operations"`         // operations it permits; "*" means all
	Attenuable  bool     `json:"attenuable"`         // whether holders may narrow and delegate it
	Requires    []string `json:"requires,omitempty"` // grants a holder must also hold
	Legacy      bool     `json:"legacy,omitempty"`   // wraps a non-capability-aware service
}

// Grants returns the documents agent's capabilityGrants, exactly as in the
// SEP's example.
func Grants() []CapabilityGrant {
	return []CapabilityGrant{
		{ID: "documents:read", Description: "Read documents accessible to the user principal",
			Operations: []string{"retrieve", "search", "list"}, Attenuable: true},
		{ID: "documents:write", Description: "Create and modify documents",
			Operations: []string{"create", "update", "delete"}, Attenuable: true, Requires: []string{"documents:read"}},
		{ID: "documents:admin", Description: "Full access (legacy wrapper)",
			Operations: []string{"*"}, Attenuable: false, Legacy: true},
	}
}

// CapabilityExtension returns the card entry declaring the SEP extension.
func CapabilityExtension() a2a.AgentExtension {
	return a2a.AgentExtension{
		URI:         CapabilityExtensionURI,
		Description: "SEP capability negotiation: skill invocations name a task-scoped capability (a2a/skill/invoke with capabilityId) and delegated sends carry attenuated capabilities.",
	}
}

// MarshalCard marshals card and merges extra into the top-level object:
// a2a.AgentCard has no member for capabilityGrants or the protocol version
// range. When both the card and extra hold an object under the same key
// (e.g. "capabilities"), extra's members are merged into it one level
// deep; otherwise extra's value wins.
func MarshalCard(card a2a.AgentCard, extra map[string]any) ([]byte, error) {
	base, err := json.Marshal(card)
	if err != nil {
		return nil, fmt.Errorf("documents: marshal card: %w", err)
	}
	var merged map[string]any
	if err := json.Unmarshal(base, &merged); err != nil {
		return nil, fmt.Errorf("documents: marshal card: %w", err)
	}
	for k, v := range extra {
		inner, isObj := merged[k].(map[string]any)
		add, addObj := v.(map[string]any)
		if isObj && addObj {
			maps.Copy(inner, add)
			continue
		}
		merged[k] = v
	}
	out, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("documents: marshal card: %w", err)
	}
	return out, nil
}

// Card returns the documents agent's card as a2a.AgentCard, with url set
// to baseURL. The served card adds capabilityGrants and the protocol
// version range; see [Agent.CardJSON].
func Card(baseURL string) a2a.AgentCard {
	return a2a.AgentCard{
		Name:               AgentName,
		Description:        "Quickstart documents agent: retrieves, searches, lists, updates and deletes the documents a capability designates.",
		URL:                baseURL,
		Version:            AgentVersion,
		ProtocolVersion:    ProtocolVersion,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Capabilities: a2a.AgentCapabilities{
			Streaming:  true,
			Extensions: []a2a.AgentExtension{CapabilityExtension()},
		},
		Skills: cardSkills(),
	}
}

func cardSkills() []a2a.AgentSkill {
	skill := func(id, name, desc string) a2a.AgentSkill {
		op, _ := SkillOperation(id)
		return a2a.AgentSkill{ID: id, Name: name, Description: desc, Tags: []string{"documents", op}}
	}
	return []a2a.AgentSkill{
		skill(SkillRetrieve, "Retrieve document", "Returns a document's id, title and content. Argument: resourceHandle."),
		skill(SkillSearch, "Search documents", "Finds the designated documents whose title or content contains a query. Arguments: query."),
		skill(SkillList, "List documents", "Lists the titles of the designated documents."),
		skill(SkillUpdate, "Update document", "Replaces a document's content. Arguments: resourceHandle, content."),
		skill(SkillDelete, "Delete document", "Deletes a document. Argument: resourceHandle."),
	}
}

// cardExtras are the members the served documents card adds to a2a.AgentCard.
func cardExtras() map[string]any {
	return map[string]any{
		"capabilityGrants":     Grants(),
		"min_protocol_version": MinProtocolVersion,
		"max_protocol_version": MaxProtocolVersion,
	}
}
