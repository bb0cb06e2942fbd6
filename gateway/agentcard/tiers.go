package agentcard

import (
	"slices"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Card members added by the AgentCard capability contract. The contract
// names its fields in protobuf style, so they are snake_case in JSON, next
// to A2A's camelCase members.
const (
	// MemberTiers is the card member holding the capability tiers.
	MemberTiers = "capability_tiers"
	// MemberMinProtocolVersion is the lowest A2A protocol version the agent
	// supports, for example "0.3.0".
	MemberMinProtocolVersion = "min_protocol_version"
	// MemberMaxProtocolVersion is the highest A2A protocol version the agent
	// supports, for example "1.2".
	MemberMaxProtocolVersion = "max_protocol_version"
)

// The three tiers of the contract: the keys of the capability_tiers object.
const (
	// TierImplicit lists what every compliant agent supports undeclared.
	TierImplicit = "implicit"
	// TierDeclared lists the optional capabilities the agent declares,
	// followed by the URIs of the extensions it declares.
	TierDeclared = "declared"
	// TierDeprecated lists capabilities the agent still supports but that
	// callers should avoid.
	TierDeprecated = "deprecated"
)

// Declared (tier 2) capability names. Each is a boolean member of the
// card's capabilities object; absent means not supported, as the contract
// requires a supported optional capability to be declared.
const (
	CapPauseResume             = "pause_resume"
	CapStreamingMessage        = "streaming_message"
	CapPushNotifications       = "push_notifications"
	CapContextReuse            = "context_reuse"
	CapMultiTenant             = "multi_tenant"
	CapMessageHistoryInjection = "message_history_injection"
)

// Deprecated (tier 3) capability names.
const (
	// CapArtifactStreaming is direct artifact streaming, superseded by
	// Message streaming (the contract's own example).
	CapArtifactStreaming = "artifact_streaming"
	// CapStateTransitionHistory is A2A v0.3's stateTransitionHistory, which
	// A2A v1.0 removed.
	CapStateTransitionHistory = "state_transition_history"
)

// Requirement names beyond the tier names (CapStreamingMessage, ...,
// CapArtifactStreaming, ...) that Requirements.Capabilities may hold. An
// extension URI ("https://…", "http://…" or "urn:…") may also be required.
const (
	// ReqStreaming needs A2A streaming (message/stream, resubscription):
	// capabilities.streaming or streaming_message is true.
	ReqStreaming = "streaming"
	// ReqPushNotifications needs push-notification configuration.
	ReqPushNotifications = CapPushNotifications
	// ReqCapabilityExtension needs an agent that understands capabilities:
	// capabilities.extensions declares ExtensionURI.
	ReqCapabilityExtension = "capability_extension"
)

// ImplicitCapabilities returns the tier-1 capabilities, in the contract's
// order: SendMessage (single message, no history), GetTask, ListTasks and
// basic error handling. The slice is fresh on every call.
func ImplicitCapabilities() []string {
	return []string{"SendMessage", "GetTask", "ListTasks", "error_handling"}
}

// DeclaredCapabilities returns the tier-2 capability names, in the
// contract's order. The slice is fresh on every call.
func DeclaredCapabilities() []string {
	return []string{CapPauseResume, CapStreamingMessage, CapPushNotifications,
		CapContextReuse, CapMultiTenant, CapMessageHistoryInjection}
}

// DeprecatedCapabilities returns the tier-3 capability names the gateway
// knows. The slice is fresh on every call.
func DeprecatedCapabilities() []string {
	return []string{CapArtifactStreaming, CapStateTransitionHistory}
}

// alias returns the A2A member that declares the same thing as a contract
// name when the contract member is absent: streaming → streaming_message,
// pushNotifications → push_notifications, stateTransitionHistory →
// state_transition_history.
func alias(name string) string {
	switch name {
	case CapStreamingMessage:
		return "streaming"
	case CapPushNotifications:
		return "pushNotifications"
	case CapStateTransitionHistory:
		return "stateTransitionHistory"
	}
	return ""
}

// flag resolves one contract capability in a capabilities object: the
// contract member when present, else its A2A alias, else false. ok is false
// when the member that decides is present but not a boolean.
func flag(caps map[string]any, name string) (value, ok bool) {
	for _, k := range [2]string{name, alias(name)} {
		v, present := caps[k]
		if k == "" || !present {
			continue
		}
		b, isBool := v.(bool)
		return b, isBool
	}
	return false, true
}

// capabilitiesOf returns card.capabilities as an object, or nil.
func capabilitiesOf(card map[string]any) map[string]any {
	caps, _ := card["capabilities"].(map[string]any)
	return caps
}

// extensionURIs lists the string uris of capabilities.extensions, in card
// order, without duplicates. Malformed entries are skipped (Validate
// reports them).
func extensionURIs(caps map[string]any) []string {
	list, _ := caps["extensions"].([]any)
	var out []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		uri, _ := m["uri"].(string)
		if uri != "" && !slices.Contains(out, uri) {
			out = append(out, uri)
		}
	}
	return out
}

// Tiers derives the capability_tiers object from a card's capabilities:
//
//	{"implicit":   ["SendMessage","GetTask","ListTasks","error_handling"],
//	 "declared":   [tier-2 names declared true..., extension uris...],
//	 "deprecated": [tier-3 names declared true...]}
//
// A tier-2 or tier-3 name is declared by its boolean member in
// capabilities, or, when that is absent, by the A2A member it derives from
// (streaming → streaming_message, pushNotifications → push_notifications,
// stateTransitionHistory → state_transition_history). A member that is not
// a boolean declares nothing. Lists are never nil. card is not modified.
func Tiers(card map[string]any) map[string]any {
	caps := capabilitiesOf(card)
	declared := []string{}
	for _, name := range DeclaredCapabilities() {
		if v, ok := flag(caps, name); v && ok {
			declared = append(declared, name)
		}
	}
	declared = append(declared, extensionURIs(caps)...)
	deprecated := []string{}
	for _, name := range DeprecatedCapabilities() {
		if v, ok := flag(caps, name); v && ok {
			deprecated = append(deprecated, name)
		}
	}
	return map[string]any{
		TierImplicit:   ImplicitCapabilities(),
		TierDeclared:   declared,
		TierDeprecated: deprecated,
	}
}

// WithTiers returns a copy of card (normally Rewrite's output) carrying
// what the capability contract asks a served card to carry:
//
//   - capabilities holds every tier-2 name as an explicit boolean, derived
//     as Tiers does, next to the members it already had (a member that is
//     not a boolean is left as it is, so that Validate refuses the served
//     card exactly as it refuses the upstream one);
//   - capability_tiers is recomputed by Tiers (an upstream's own value is
//     replaced, so the tiers always agree with the flags);
//   - min_protocol_version and max_protocol_version are kept as they are;
//     when both are absent and the card declares exactly one version (in
//     protocolVersion and its JSON-RPC interfaces), both are set to it,
//     which is what Validate assumes of such a card anyway. A card of
//     several versions gets no range: a range would also claim the
//     versions between them.
//
// card and the maps inside it are not modified.
func WithTiers(card map[string]any) map[string]any {
	out := make(map[string]any, len(card)+3)
	for k, v := range card {
		out[k] = v
	}
	_, present := card["capabilities"]
	if caps := capabilitiesOf(card); caps != nil || !present {
		out["capabilities"] = withFlags(caps)
	}
	out[MemberTiers] = Tiers(out)
	_, hasMin := card[MemberMinProtocolVersion]
	_, hasMax := card[MemberMaxProtocolVersion]
	if spec, err := cardVersions(card); err == nil && !hasMin && !hasMax && len(spec.list) == 1 {
		out[MemberMinProtocolVersion] = spec.list[0]
		out[MemberMaxProtocolVersion] = spec.list[0]
	}
	return out
}

// withFlags returns a copy of caps with every tier-2 flag explicit.
func withFlags(src map[string]any) map[string]any {
	caps := make(map[string]any, len(src)+len(DeclaredCapabilities()))
	for k, v := range src {
		caps[k] = v
	}
	for _, name := range DeclaredCapabilities() {
		if v, ok := flag(src, name); ok {
			caps[name] = v
		}
	}
	return caps
}

// UnderstandsCapabilities reports whether a card (as fetched from the
// upstream) declares the capability-negotiation extension. A delegation to
// an agent that does not may only fall back to ambient authority where the
// policy explicitly says so.
func UnderstandsCapabilities(card map[string]any) bool {
	return declares(capabilitiesOf(card), ReqCapabilityExtension)
}

// RequirementsFor returns what a call needs from the agent it reaches:
// ReqStreaming for a streaming method (message/stream, SendStreamingMessage,
// tasks/sendSubscribe, resubscription), ReqPushNotifications for a
// push-notification config method of any A2A generation, and, when the
// call delegates capabilities, ReqCapabilityExtension. Method names are
// matched exactly, as jsonrpc.MethodGeneration does. The result is nil when
// nothing is needed.
func RequirementsFor(method string, delegated bool) []string {
	var out []string
	if jsonrpc.IsStreaming(method) {
		out = append(out, ReqStreaming)
	}
	switch canonical, _ := jsonrpc.MethodGeneration(method); canonical {
	case jsonrpc.MethodSetTaskPushNotificationConfig, jsonrpc.MethodGetTaskPushNotificationConfig,
		jsonrpc.MethodListTaskPushNotificationConfig, jsonrpc.MethodDeleteTaskPushNotificationConfig:
		out = append(out, ReqPushNotifications)
	}
	if delegated {
		out = append(out, ReqCapabilityExtension)
	}
	return out
}
