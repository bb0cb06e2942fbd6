package authn

import (
	"fmt"
)

// principalFromClaims maps verified claims to a Principal:
//   - the user claim, when present, gives "user:<value>"; with
//     RequireEmailVerified, email_verified must be true, and a token whose
//     user claim is unverified is refused (it never falls back to agent);
//   - otherwise the agent claim gives "agent:<value>";
//   - otherwise the token names no principal and is refused.
//
// Groups come from the groups claim: an array of strings, or one string. A
// groups claim of any other shape refuses the token rather than silently
// dropping group memberships that deny rules may depend on.
func principalFromClaims(cfg IssuerConfig, claims map[string]any) (*Principal, error) {
	id, err := principalID(cfg, claims)
	if err != nil {
		return nil, err
	}
	groups, err := groupsClaim(claims, cfg.GroupsClaim)
	if err != nil {
		return nil, err
	}
	return &Principal{ID: id, Issuer: cfg.Issuer, Groups: groups, Claims: claims}, nil
}

func principalID(cfg IssuerConfig, claims map[string]any) (string, error) {
	if raw, ok := claims[cfg.UserClaim]; ok && raw != nil {
		name, err := nameClaim(cfg.UserClaim, raw)
		if err != nil {
			return "", err
		}
		if cfg.RequireEmailVerified && !isTrue(claims["email_verified"]) {
			return "", invalid("email_verified is not true")
		}
		return "user:" + name, nil
	}
	if raw, ok := claims[cfg.AgentClaim]; ok && raw != nil {
		name, err := nameClaim(cfg.AgentClaim, raw)
		if err != nil {
			return "", err
		}
		return "agent:" + name, nil
	}
	return "", invalid(fmt.Sprintf("token has neither %q nor %q claim", cfg.UserClaim, cfg.AgentClaim))
}

func nameClaim(claim string, raw any) (string, error) {
	s, ok := raw.(string)
	if !ok {
		return "", invalid(fmt.Sprintf("claim %q is not a string", claim))
	}
	if err := checkName(s); err != nil {
		return "", invalid(fmt.Sprintf("claim %q %v", claim, err))
	}
	return s, nil
}

// isTrue accepts the JSON boolean true, and the string "true" that some
// identity providers send instead.
func isTrue(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return b == "true"
	default:
		return false
	}
}

func groupsClaim(claims map[string]any, claim string) ([]string, error) {
	switch v := claims[claim].(type) {
	case nil:
		return nil, nil
	case string:
		if v == "" {
			return nil, nil
		}
		return []string{v}, nil
	case []any:
		groups := make([]string, 0, len(v))
		for i, g := range v {
			s, ok := g.(string)
			if !ok || s == "" {
				return nil, invalid(fmt.Sprintf("claim %q[%d] is not a non-empty string", claim, i))
			}
			groups = append(groups, s)
		}
		return groups, nil
	default:
		return nil, invalid(fmt.Sprintf("claim %q is neither a string nor an array of strings", claim))
	}
}
