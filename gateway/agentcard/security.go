package agentcard

import (
	"fmt"
	"strings"
)

// SchemeBearer names the HTTP Bearer security scheme of a served card.
const SchemeBearer = "bearer"

// oidcScheme names the OpenID Connect scheme of the i-th configured
// issuer (from 1).
func oidcScheme(i int) string { return fmt.Sprintf("oidc-%d", i) }

// DiscoveryURL returns an OIDC issuer's discovery document URL.
func DiscoveryURL(issuer string) string {
	return strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
}

// securityMembers returns the securitySchemes and security requirements a
// served card declares: every call carries a Bearer credential (an OIDC
// token of a configured issuer, or a dev key), so the schemes are HTTP
// Bearer and one OpenID Connect scheme per issuer, and any one of them
// satisfies the requirement.
//
// A2A v1.0 writes a scheme as {"httpAuthSecurityScheme": {...}} and the
// requirements as securityRequirements [{"schemes": {name: {"list": []}}}];
// v0.3 writes a scheme as {"type": "http", ...} (the OpenAPI form) and the
// requirements as security [{name: []}]. A card that v0.3 clients read
// (legacy) carries both: each scheme object holds both forms, which each
// generation's parser reads while ignoring the other's members.
func securityMembers(issuers []string, legacy bool) map[string]any {
	const desc = "capgate credential: a token of a configured OpenID Connect issuer, or a dev key, as a Bearer token"
	bearer := map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer", "description": desc}}
	if legacy {
		bearer["type"], bearer["scheme"], bearer["description"] = "http", "bearer", desc
	}
	schemes := map[string]any{SchemeBearer: bearer}
	names := []string{SchemeBearer}
	for i, iss := range issuers {
		name := oidcScheme(i + 1)
		oidc := map[string]any{"openIdConnectSecurityScheme": map[string]any{"openIdConnectUrl": DiscoveryURL(iss)}}
		if legacy {
			oidc["type"], oidc["openIdConnectUrl"] = "openIdConnect", DiscoveryURL(iss)
		}
		schemes[name] = oidc
		names = append(names, name)
	}
	v1 := make([]any, 0, len(names))
	v03 := make([]any, 0, len(names))
	for _, n := range names {
		v1 = append(v1, map[string]any{"schemes": map[string]any{n: map[string]any{"list": []string{}}}})
		v03 = append(v03, map[string]any{n: []string{}})
	}
	out := map[string]any{"securitySchemes": schemes, "securityRequirements": v1}
	if legacy {
		out["security"] = v03
	}
	return out
}

// withoutSkillSecurity returns the skills with their own security
// requirements removed: they name the upstream's schemes, which the served
// card does not declare, and the gateway's requirement covers every skill.
func withoutSkillSecurity(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			out[i] = e
			continue
		}
		c := make(map[string]any, len(m))
		for k, x := range m {
			if k != "security" && k != "securityRequirements" {
				c[k] = x
			}
		}
		out[i] = c
	}
	return out
}
