package agentcard

// TranslatedVersion is the A2A version the gateway serves, by translation,
// for an agent that serves v0.3 and not this version.
const TranslatedVersion = "1.0"

// translatedFrom is the version the gateway translates TranslatedVersion
// calls to, and the version it serves by translation for an agent that
// serves TranslatedVersion and not this one (TranslatedTo1).
const translatedFrom = "0.3"

// translatedFromFull is translatedFrom as a v0.3 card's protocolVersion
// writes it.
const translatedFromFull = "0.3.0"

// Translated reports whether the gateway serves A2A v1.0 for the agent of
// this (upstream) card by translating v1.0 calls to v0.3 and the answers
// back: the card supports v0.3 and does not support v1.0. A card that
// cannot be read is not translated.
func Translated(upstream map[string]any) bool {
	spec, err := cardVersions(upstream)
	return err == nil && spec.admits(mustVersion(translatedFrom)) && !spec.admits(mustVersion(TranslatedVersion))
}

// TranslatedTo1 reports whether the gateway serves A2A v0.3 for the agent
// of this (upstream) card by translating v0.3 calls to v1.0 and the
// answers back: the card supports v1.0 and does not support v0.3. A card
// that cannot be read is not translated.
func TranslatedTo1(upstream map[string]any) bool {
	spec, err := cardVersions(upstream)
	return err == nil && spec.admits(mustVersion(TranslatedVersion)) && !spec.admits(mustVersion(translatedFrom))
}

// withTranslated appends, for a translated agent, the JSON-RPC interface
// of the generation the gateway serves for it by translation, after the
// agent's own interfaces: a client that speaks both prefers the agent's
// own generation.
func withTranslated(ifaces []any, upstream map[string]any, public string) []any {
	version := ""
	switch {
	case Translated(upstream):
		version = TranslatedVersion
	case TranslatedTo1(upstream):
		version = translatedFrom
	default:
		return ifaces
	}
	return append(ifaces, map[string]any{"url": public, "protocolBinding": BindingJSONRPC, "protocolVersion": version})
}

// asV03Card adds to the served card of an agent served to v0.3 callers by
// translation (TranslatedTo1) the members a v0.3 client reads: its
// protocolVersion, when the upstream card has none (a v1.0 card has it in
// its interfaces only).
func asV03Card(card, upstream map[string]any) {
	if _, ok := upstream["protocolVersion"]; !ok {
		card["protocolVersion"] = translatedFromFull
	}
}
