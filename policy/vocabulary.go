package policy

import (
	"maps"
	"slices"
)

// Vocabulary is everything the rules of a policy name that a decision can
// turn on: the principals its matchers and approvers name, and the
// resources, calls and A2E capabilities its rules name. A tool that probes
// a policy with requests (policy/impact) builds them from it, so that every
// rule can be reached. Every list is sorted and holds each value once.
type Vocabulary struct {
	// IDs are the principal ids of matchers and approvers.
	IDs []string `json:"ids,omitempty"`
	// Issuers are the issuers matchers name.
	Issuers []string `json:"issuers,omitempty"`
	// Groups are the groups matchers (groups and all_groups) and approvers
	// name.
	Groups []string `json:"groups,omitempty"`
	// GroupSets are the all_groups lists, each needing every one of its
	// groups at once.
	GroupSets [][]string `json:"groupSets,omitempty"`
	// Claims maps a claim a matcher names to the values it lists.
	Claims map[string][]string `json:"claims,omitempty"`
	// Collections are the collections resource constraints name.
	Collections []string `json:"collections,omitempty"`
	// Filters maps a filtered attribute to the values constraints list.
	Filters map[string][]string `json:"filters,omitempty"`
	// Methods are the JSON-RPC methods ambient rules name.
	Methods []string `json:"methods,omitempty"`
}

// Vocabulary returns what p's rules name.
func (p *Policy) Vocabulary() Vocabulary {
	v := Vocabulary{Claims: map[string][]string{}, Filters: map[string][]string{}}
	heads := make([]*ruleHead, 0, len(p.rules)+len(p.a2e)+len(p.ambient))
	for _, r := range p.rules {
		heads = append(heads, &r.ruleHead)
		if r.res != nil {
			v.addResource(*r.res)
		}
		if r.approval != nil {
			v.IDs = append(v.IDs, r.approval.approvers.IDs...)
			v.Groups = append(v.Groups, r.approval.approvers.Groups...)
		}
	}
	for _, r := range p.a2e {
		heads = append(heads, &r.ruleHead)
	}
	for _, r := range p.ambient {
		heads = append(heads, &r.ruleHead)
		v.Methods = append(v.Methods, r.methods...)
	}
	for _, h := range heads {
		m := &h.who
		v.IDs = append(v.IDs, m.ids...)
		v.Issuers = append(v.Issuers, m.issuers...)
		v.Groups = append(append(v.Groups, m.groups...), m.allGroups...)
		if len(m.allGroups) > 0 {
			v.GroupSets = append(v.GroupSets, slices.Sorted(slices.Values(dedupe(m.allGroups))))
		}
		for k, vals := range m.claims {
			v.Claims[k] = append(v.Claims[k], vals...)
		}
	}
	v.normalize()
	return v
}

func (v *Vocabulary) addResource(c ResourceConstraint) {
	if c.Collection != "" {
		v.Collections = append(v.Collections, c.Collection)
	}
	for k, vals := range c.Filter {
		v.Filters[k] = append(v.Filters[k], vals...)
	}
}

// normalize sorts every list and drops repeats and wildcards.
func (v *Vocabulary) normalize() {
	clean := func(s []string) []string {
		s = slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x == "*" || x == "" })
		slices.Sort(s)
		return slices.Compact(s)
	}
	v.IDs, v.Issuers, v.Groups = clean(v.IDs), clean(v.Issuers), clean(v.Groups)
	v.Collections, v.Methods = clean(v.Collections), clean(v.Methods)
	for _, m := range []map[string][]string{v.Claims, v.Filters} {
		for k := range m {
			m[k] = clean(m[k])
		}
	}
	slices.SortFunc(v.GroupSets, slices.Compare)
	v.GroupSets = slices.CompactFunc(v.GroupSets, slices.Equal)
}

// Merge returns the union of v and o.
func (v Vocabulary) Merge(o Vocabulary) Vocabulary {
	out := Vocabulary{
		IDs: slices.Concat(v.IDs, o.IDs), Issuers: slices.Concat(v.Issuers, o.Issuers),
		Groups: slices.Concat(v.Groups, o.Groups), GroupSets: slices.Concat(v.GroupSets, o.GroupSets),
		Collections: slices.Concat(v.Collections, o.Collections), Methods: slices.Concat(v.Methods, o.Methods),
		Claims: maps.Clone(v.Claims), Filters: maps.Clone(v.Filters),
	}
	if out.Claims == nil {
		out.Claims = map[string][]string{}
	}
	if out.Filters == nil {
		out.Filters = map[string][]string{}
	}
	for k, vals := range o.Claims {
		out.Claims[k] = slices.Concat(out.Claims[k], vals)
	}
	for k, vals := range o.Filters {
		out.Filters[k] = slices.Concat(out.Filters[k], vals)
	}
	out.normalize()
	return out
}

// Catalog returns the catalog p was loaded against.
func (p *Policy) Catalog() Catalog { return p.cat }
