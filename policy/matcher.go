package policy

import (
	"fmt"
	"slices"
	"strings"
)

// matcher is a compiled principals matcher. Every criterion that is set
// must hold (AND); within ids, issuers, groups and a claim's values any one
// value suffices (OR); all_groups needs every listed group.
type matcher struct {
	any       bool
	ids       []string
	issuers   []string
	groups    []string
	allGroups []string
	claims    map[string][]string
}

// compileMatcher validates raw and records problems under path.
func compileMatcher(ps *problems, path string, raw *rawPrincipals) matcher {
	if raw == nil {
		ps.add(path, ErrMissingField, "principals is required (write `principals: {any: true}` to match every principal)")
		return matcher{}
	}
	m := matcher{any: raw.Any, ids: raw.IDs, issuers: raw.Issuers, groups: raw.Groups, allGroups: raw.AllGroups}
	for _, l := range []struct {
		name string
		vals []string
	}{{"ids", raw.IDs}, {"issuers", raw.Issuers}, {"groups", raw.Groups}, {"all_groups", raw.AllGroups}} {
		for i, v := range l.vals {
			switch {
			case strings.TrimSpace(v) == "":
				ps.add(fmt.Sprintf("%s.%s[%d]", path, l.name, i), ErrBadMatcher, "empty value in principals.%s", l.name)
			case v == "*":
				ps.add(fmt.Sprintf("%s.%s[%d]", path, l.name, i), ErrBadMatcher,
					`"*" is not a wildcard in principals.%s (write `+"`any: true`"+` to match every principal)`, l.name)
			}
		}
	}
	if len(raw.Claims) > 0 {
		m.claims = make(map[string][]string, len(raw.Claims))
		for k, vals := range raw.Claims {
			if len(vals) == 0 {
				ps.add(path+".claims."+k, ErrBadMatcher, "claim %q lists no value and would match nobody", k)
			}
			m.claims[k] = vals
		}
	}
	criteria := len(m.ids) + len(m.issuers) + len(m.groups) + len(m.allGroups) + len(m.claims)
	switch {
	case m.any && criteria > 0:
		ps.add(path+".any", ErrBadMatcher, "any: true cannot be combined with other criteria")
	case !m.any && criteria == 0:
		ps.add(path, ErrBadMatcher, "principals matches nobody (write `any: true` to match every principal)")
	}
	return m
}

// matches reports whether p satisfies every criterion of m. It allocates
// nothing: it runs for every indexed rule on the hot path.
func (m *matcher) matches(p *Principal) bool {
	if m.any {
		return true
	}
	if len(m.ids) > 0 && !slices.Contains(m.ids, p.ID) {
		return false
	}
	if len(m.issuers) > 0 && !slices.Contains(m.issuers, p.Issuer) {
		return false
	}
	if len(m.groups) > 0 && !anyIn(m.groups, p.Groups) {
		return false
	}
	for _, g := range m.allGroups {
		if !slices.Contains(p.Groups, g) {
			return false
		}
	}
	for k, vals := range m.claims {
		if !claimMatches(p.Claims[k], vals) {
			return false
		}
	}
	return true
}

// anyIn reports whether some element of want is in have.
func anyIn(want, have []string) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

// whyNot returns "" when p matches, else the first failing criterion.
func (m *matcher) whyNot(p *Principal) string {
	if m.any {
		return ""
	}
	if len(m.ids) > 0 && !slices.Contains(m.ids, p.ID) {
		return "principal id is not in ids " + list(m.ids)
	}
	if len(m.issuers) > 0 && !slices.Contains(m.issuers, p.Issuer) {
		return "issuer " + p.Issuer + " is not in issuers " + list(m.issuers)
	}
	if len(m.groups) > 0 && !anyIn(m.groups, p.Groups) {
		return "principal is in none of groups " + list(m.groups)
	}
	for _, g := range m.allGroups {
		if !slices.Contains(p.Groups, g) {
			return "principal is not in group " + g + " (all_groups " + list(m.allGroups) + ")"
		}
	}
	for _, k := range sortedKeys(m.claims) {
		if !claimMatches(p.Claims[k], m.claims[k]) {
			return "claim " + k + " is not one of " + list(m.claims[k])
		}
	}
	return ""
}

// claimMatches compares a token claim with the allowed values. Strings
// compare as is; numbers and booleans by their canonical text; a list claim
// matches when any element does.
func claimMatches(v any, allowed []string) bool {
	switch c := v.(type) {
	case nil:
		return false
	case string:
		return slices.Contains(allowed, c)
	case []string:
		return slices.ContainsFunc(c, func(s string) bool { return slices.Contains(allowed, s) })
	case []any:
		return slices.ContainsFunc(c, func(e any) bool {
			_, isList := e.([]any)
			return !isList && claimMatches(e, allowed)
		})
	case bool, float64, float32, int, int64, int32, uint, uint64, uint32, fmt.Stringer:
		return slices.Contains(allowed, fmt.Sprint(c))
	}
	return false
}

// String describes m for Explain.
func (m *matcher) String() string {
	if m.any {
		return "any principal"
	}
	var parts []string
	add := func(name string, vals []string) {
		if len(vals) > 0 {
			parts = append(parts, name+" "+list(vals))
		}
	}
	add("ids", m.ids)
	add("issuers", m.issuers)
	add("groups", m.groups)
	add("all_groups", m.allGroups)
	for _, k := range sortedKeys(m.claims) {
		parts = append(parts, "claim "+k+" in "+list(m.claims[k]))
	}
	return strings.Join(parts, " and ")
}

// subsumes reports, conservatively, whether every principal matched by o is
// also matched by m (used to find shadowed rules).
func (m *matcher) subsumes(o *matcher) bool {
	if m.any {
		return true
	}
	if o.any {
		return false
	}
	if !subset(o.ids, m.ids) || !subset(o.issuers, m.issuers) || !subsetOf(m.allGroups, o.allGroups) {
		return false
	}
	if len(m.groups) > 0 && !(len(o.groups) > 0 && subsetOf(o.groups, m.groups)) && !anyIn(m.groups, o.allGroups) {
		return false
	}
	for k, vals := range m.claims {
		if !subset(o.claims[k], vals) {
			return false
		}
	}
	return true
}

// subset reports whether inner is non-empty and inside outer, or outer is
// empty (no constraint).
func subset(inner, outer []string) bool {
	if len(outer) == 0 {
		return true
	}
	return len(inner) > 0 && subsetOf(inner, outer)
}

// subsetOf reports whether every element of inner is in outer.
func subsetOf(inner, outer []string) bool {
	for _, v := range inner {
		if !slices.Contains(outer, v) {
			return false
		}
	}
	return true
}

// list renders values as [a, b].
func list(vals []string) string {
	return "[" + strings.Join(vals, ", ") + "]"
}
