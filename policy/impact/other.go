package impact

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/capgate/capgate/policy"
)

// compareA2E compares one A2E handshake of one capability.
func compareA2E(in policy.A2EInput, od, nd policy.A2EDecision) []Change {
	var out []Change
	for _, c := range in.Capabilities {
		was, is := slices.Contains(od.Allowed, c), slices.Contains(nd.Allowed, c)
		if was == is {
			continue
		}
		ch := Change{Principals: []policy.Principal{in.Principal}, Kind: "a2e", Subject: in.Host + " " + c}
		if is {
			ch.Direction, ch.Rule, ch.RuleIn, ch.What = Widens, firstRule(nd.Matched), "new", "refused → allowed"
		} else {
			ch.Direction, ch.Rule, ch.RuleIn = Narrows, firstRule(nd.Matched), "new"
			if ch.Rule == "" {
				ch.Rule, ch.RuleIn = firstRule(od.Matched), "old"
			}
			ch.What = "allowed → refused: " + nd.Denied[c]
		}
		out = append(out, ch)
	}
	return out
}

// compareAmbient compares one ambient call.
func compareAmbient(in policy.AmbientInput, od, nd policy.Decision) []Change {
	if od.Allow == nd.Allow {
		return nil
	}
	ch := Change{Principals: []policy.Principal{in.Principal}, Kind: "ambient", Subject: in.Agent + " " + in.Method + " " + in.Skill}
	if nd.Allow {
		ch.Direction, ch.Rule, ch.RuleIn, ch.What = Widens, firstRule(nd.Matched), "new", "refused → allowed"
	} else {
		ch.Direction, ch.Rule, ch.RuleIn = Narrows, firstRule(nd.Matched), "new"
		if ch.Rule == "" {
			ch.Rule, ch.RuleIn = firstRule(od.Matched), "old"
		}
		ch.What = "allowed → refused"
		if len(nd.Reasons) > 0 {
			ch.What += ": " + nd.Reasons[len(nd.Reasons)-1].Text
		}
	}
	return []Change{ch}
}

func firstRule(refs []policy.RuleRef) string {
	if len(refs) == 0 {
		return ""
	}
	return refs[0].ID
}

// DescribePrincipal renders a principal for a report: its id, its
// issuer, groups and claims. A synthetic principal no rule names by id is
// "any principal" or "group g", "groups g+h".
func DescribePrincipal(p policy.Principal) string {
	s := p.ID
	if p.ID == unnamed {
		switch len(p.Groups) {
		case 0:
			s = "any principal"
		case 1:
			s = "group " + p.Groups[0]
		default:
			s = "groups " + strings.Join(p.Groups, "+")
		}
		p.Groups = nil
	}
	if p.Issuer != "" {
		s += " issuer " + p.Issuer
	}
	if len(p.Groups) > 0 {
		s += " [" + strings.Join(p.Groups, " ") + "]"
	}
	if len(p.Claims) > 0 {
		s += " {" + claimsText(p.Claims) + "}"
	}
	return s
}

// claimsText renders claims as k=v, sorted.
func claimsText(claims map[string]any) string {
	parts := make([]string, 0, len(claims))
	for k, v := range claims {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
