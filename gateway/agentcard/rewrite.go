package agentcard

// Rewrite returns a copy of the upstream card as the gateway serves it.
//
//   - supportedInterfaces (A2A v1.0) lists one entry per JSON-RPC
//     interface of the upstream, each with url pointing at the gateway
//     and the upstream's protocolBinding and protocolVersion; gRPC and
//     HTTP+JSON interfaces are dropped, as the gateway fronts JSON-RPC
//     only. A v0.3 upstream card gets the entries its versions imply.
//     An agent that serves v0.3 and not v1.0 also gets a v1.0 JSON-RPC
//     interface, last: the gateway translates v1.0 calls for it.
//   - The v0.3 members url, preferredTransport (JSONRPC) and
//     additionalInterfaces are kept, pointing at the gateway, where the
//     upstream card had them. An agent that serves v1.0 and not v0.3 is
//     served to v0.3 callers by translation: its card gets url,
//     preferredTransport, protocolVersion 0.3.0 (when it had none), the
//     v0.3 form of the security schemes and a v0.3 JSON-RPC interface,
//     last. protocolVersion is otherwise kept as the upstream wrote it.
//   - securitySchemes and the security requirements are the gateway's
//     (see securityMembers); the upstream's, and the skills' own, name
//     schemes the caller never deals with and are removed.
//   - signatures are removed: they sign the upstream's card, which is not
//     the card served, so passing one on would only offer a signature that
//     does not verify. (A Source with Config.Sign signs the served card.)
//   - The capability tiers and version range are explicit (WithTiers), the
//     capabilityGrants are the configured ones, and the capability
//     extension is declared.
//
// The served card is built from the members capgate knows (cardMembers:
// A2A v0.3 and v1.0, the capability contract's and the SEP's), at every
// depth it knows them, and the extensions the card declares, their params
// whole. Any other member is dropped, whatever it looks like: a reader
// that matches names case-insensitively, as encoding/json does, would
// take "Signatures", "ſignatures" (U+017F) or "URL" for the member of
// that name, and the served card must not offer it one the gateway did
// not write. (Decode refuses a card holding both spellings.)
func Rewrite(upstream map[string]any, cfg Config) map[string]any {
	upstream, _ = known(upstream)
	card := make(map[string]any, len(upstream)+4)
	for k, v := range upstream {
		card[k] = v
	}
	up := TranslatedTo1(upstream)
	legacy := hasV03Members(upstream) || up
	if up {
		asV03Card(card, upstream)
	}
	card["supportedInterfaces"] = withTranslated(servedInterfaces(upstream, cfg.PublicURL), upstream, cfg.PublicURL)
	delete(card, "additionalInterfaces")
	if legacy {
		card["url"] = cfg.PublicURL
		card["preferredTransport"] = BindingJSONRPC
		if _, ok := upstream["additionalInterfaces"]; ok {
			card["additionalInterfaces"] = []any{map[string]any{"url": cfg.PublicURL, "transport": BindingJSONRPC}}
		}
	}
	delete(card, "signatures")
	delete(card, "security")
	delete(card, "security_requirements")
	for k, v := range securityMembers(cfg.OIDCIssuers, legacy) {
		card[k] = v
	}
	if skills, ok := card["skills"]; ok {
		card["skills"] = withoutSkillSecurity(skills)
	}
	grants := make([]Grant, 0, len(cfg.Grants))
	for _, g := range cfg.Grants {
		grants = append(grants, wireGrant(g))
	}
	card["capabilityGrants"] = grants
	card["capabilities"] = withExtension(upstream["capabilities"], !cfg.Legacy)
	return WithTiers(card)
}

func withExtension(v any, required bool) map[string]any {
	caps := map[string]any{}
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			caps[k] = x
		}
	}
	var exts []any
	if list, ok := caps["extensions"].([]any); ok {
		for _, e := range list {
			if m, ok := e.(map[string]any); ok && m["uri"] == ExtensionURI {
				continue
			}
			exts = append(exts, e)
		}
	}
	exts = append(exts, map[string]any{
		"uri":         ExtensionURI,
		"description": "Capability negotiation (SEP): request, invoke with capabilityId, attenuate, revoke; enforced by capgate",
		"required":    required,
	})
	caps["extensions"] = exts
	return caps
}
