package policy

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// Resource is a concrete resource of an agent: the gateway's one
// definition of it, which a legacy agent's catalog in the config declares
// (its yaml keys are agents[].catalog entries), policy matches, and an
// approval record holds (its JSON is that record's stored form, under
// the record's MAC, so it must not change). The wire form of the
// resolution hook is sep.Resource.
type Resource struct {
	// ID is the agent's real resource id, for example q1-financial. It is
	// never shown to callers; a record's public copy leaves it out.
	ID string `json:"id,omitempty" yaml:"id"`
	// DisplayName is the title callers and approvers see.
	DisplayName string `json:"displayName" yaml:"display_name"`
	// Collection is the resource's collection, for example reports.
	Collection string `json:"collection,omitempty" yaml:"collection"`
	// Attributes holds filterable attributes, for example quarter=2025-Q1.
	Attributes map[string]string `json:"attributes,omitempty" yaml:"attributes,omitempty"`
}

// ResourceConstraint bounds a set of resources: an optional collection and,
// per attribute, the allowed values. The zero value matches every resource.
type ResourceConstraint struct {
	// Collection, when set, must equal the resource's collection.
	Collection string `json:"collection,omitempty"`
	// Filter maps an attribute to its allowed values. The attribute "id"
	// falls back to Resource.ID when Attributes lacks it.
	Filter map[string][]string `json:"filter,omitempty"`
}

// IsZero reports whether c constrains nothing.
func (c ResourceConstraint) IsZero() bool {
	return c.Collection == "" && len(c.Filter) == 0
}

// Matches reports whether r lies inside c. A filtered attribute that r lacks
// does not match: absence never widens.
func (c ResourceConstraint) Matches(r Resource) bool {
	if c.Collection != "" && r.Collection != c.Collection {
		return false
	}
	for k, allowed := range c.Filter {
		v, ok := r.Attributes[k]
		if !ok && k == "id" {
			v, ok = r.ID, r.ID != ""
		}
		if !ok || !slices.Contains(allowed, v) {
			return false
		}
	}
	return true
}

// String renders c as collection=reports quarter=[2025-Q1], or "any".
func (c ResourceConstraint) String() string {
	if c.IsZero() {
		return "any resource"
	}
	var parts []string
	if c.Collection != "" {
		parts = append(parts, "collection="+c.Collection)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Filter)) {
		parts = append(parts, k+"=["+strings.Join(c.Filter[k], ",")+"]")
	}
	return strings.Join(parts, " ")
}

// Permits reports whether the issued capability may designate r: r is
// inside Resource and inside none of Excluded.
func (g GrantDecision) Permits(r Resource) bool {
	if !g.Resource.Matches(r) {
		return false
	}
	for _, ex := range g.Excluded {
		if ex.Matches(r) {
			return false
		}
	}
	return true
}

// Covers reports whether every resource matched by inner is matched by c,
// judged on the constraints alone (conservatively: false when unsure).
func (c ResourceConstraint) Covers(inner ResourceConstraint) bool {
	if c.Collection != "" && c.Collection != inner.Collection {
		return false
	}
	for k, allowed := range c.Filter {
		vals := inner.Filter[k]
		if len(vals) == 0 {
			return false
		}
		for _, v := range vals {
			if !slices.Contains(allowed, v) {
				return false
			}
		}
	}
	return true
}

// Matches reports whether r answers the query: in its collection, with
// every filtered attribute equal. A nil query matches every resource. The
// gateway uses it to re-check what an agent or a catalog resolved, so an
// answer that is too broad can never widen what is issued.
func (q *ResourceQuery) Matches(r Resource) bool {
	return queryConstraint(q).Matches(r)
}

// queryConstraint turns a resource query into the constraint it asks for.
func queryConstraint(q *ResourceQuery) ResourceConstraint {
	if q == nil {
		return ResourceConstraint{}
	}
	c := ResourceConstraint{Collection: q.Collection}
	for k, v := range q.Filter {
		if c.Filter == nil {
			c.Filter = make(map[string][]string, len(q.Filter))
		}
		c.Filter[k] = []string{v}
	}
	return c
}

// intersectResource computes rule ∩ query. ok is false, with a reason, when
// the two are disjoint. narrowed says whether the rule added constraints the
// caller did not ask for.
func intersectResource(rule *ResourceConstraint, q *ResourceQuery) (out ResourceConstraint, narrowed bool, why string, ok bool) {
	out = queryConstraint(q)
	if rule == nil {
		return out, false, "", true
	}
	if rule.Collection != "" {
		if out.Collection != "" && out.Collection != rule.Collection {
			return ResourceConstraint{}, false, "request is for collection " + out.Collection +
				"; the rule covers collection " + rule.Collection, false
		}
		narrowed = narrowed || out.Collection == ""
		out.Collection = rule.Collection
	}
	for _, k := range sortedKeys(rule.Filter) {
		allowed := rule.Filter[k]
		if asked, has := out.Filter[k]; has {
			if !slices.Contains(allowed, asked[0]) {
				return ResourceConstraint{}, false, "request filter " + k + "=" + asked[0] +
					" is outside the rule's " + k + "=[" + strings.Join(allowed, ",") + "]", false
			}
			continue
		}
		if out.Filter == nil {
			out.Filter = make(map[string][]string, len(rule.Filter))
		}
		out.Filter[k] = slices.Clone(allowed)
		narrowed = true
	}
	return out, narrowed, "", true
}

// sortedKeys returns the keys of m in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
