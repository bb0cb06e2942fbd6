package agentcard

// Rewrite returns a copy of the upstream card as the gateway serves it:
// url points at the gateway (the upstream's interface URLs are removed),
// the capability tiers and protocol version range are explicit, the
// capabilityGrants are the configured ones, and the capability extension is
// declared. Unknown members of the upstream card are kept.
func Rewrite(upstream map[string]any, cfg Config) map[string]any {
	card := make(map[string]any, len(upstream)+2)
	for k, v := range upstream {
		card[k] = v
	}
	card["url"] = cfg.PublicURL
	card["preferredTransport"] = "JSONRPC"
	grants := cfg.Grants
	if grants == nil {
		grants = []Grant{}
	}
	card["capabilityGrants"] = grants
	card["capabilities"] = withExtension(upstream["capabilities"], !cfg.Legacy)
	// Tiers first: they read the interfaces' versions before those are
	// removed. Interfaces would name the upstream's own URLs, which callers
	// must not see or use to bypass the gateway.
	card = WithTiers(card)
	delete(card, "additionalInterfaces")
	delete(card, "supportedInterfaces")
	return card
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
