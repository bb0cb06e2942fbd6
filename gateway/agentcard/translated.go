package agentcard

// TranslatedVersion is the A2A version the gateway serves, by translation,
// for an agent that serves v0.3 and not this version.
const TranslatedVersion = "1.0"

// translatedFrom is the version the gateway translates TranslatedVersion
// calls to.
const translatedFrom = "0.3"

// Translated reports whether the gateway serves A2A v1.0 for the agent of
// this (upstream) card by translating v1.0 calls to v0.3 and the answers
// back: the card supports v0.3 and does not support v1.0. A card that
// cannot be read is not translated.
func Translated(upstream map[string]any) bool {
	spec, err := cardVersions(upstream)
	return err == nil && spec.admits(mustVersion(translatedFrom)) && !spec.admits(mustVersion(TranslatedVersion))
}

// withTranslated appends, for a translated agent, the v1.0 JSON-RPC
// interface the gateway serves for it, after the agent's own interfaces:
// a client that speaks both prefers the agent's own generation.
func withTranslated(ifaces []any, upstream map[string]any, public string) []any {
	if !Translated(upstream) {
		return ifaces
	}
	return append(ifaces, map[string]any{"url": public, "protocolBinding": BindingJSONRPC, "protocolVersion": TranslatedVersion})
}
