package policy

import "slices"

// ResourceIndex is a catalog of resources indexed by collection and by
// attribute value, so that a resource query touches only the resources
// that can match it: those of the collection it names, or holding the
// value it pins an attribute to, whichever are fewer. The cost of a
// query then follows what it matches, not the catalog's size (a query
// that names no collection and pins nothing matches the whole catalog
// and reads it whole). It is built once and read concurrently.
type ResourceIndex struct {
	all []Resource
	// byCollection and byAttr hold positions in all, ascending.
	byCollection map[string][]int32
	byAttr       map[attrValue][]int32
}

// attrValue is one attribute pinned to one value. The key "id" of a
// resource without an attribute of that name is its ID, as
// ResourceConstraint.Matches reads it.
type attrValue struct{ key, value string }

// NewResourceIndex indexes rs, which it keeps: the caller must not change
// them afterwards.
func NewResourceIndex(rs []Resource) *ResourceIndex {
	x := &ResourceIndex{all: rs, byCollection: map[string][]int32{}, byAttr: map[attrValue][]int32{}}
	for i, r := range rs {
		pos := int32(i)
		x.byCollection[r.Collection] = append(x.byCollection[r.Collection], pos)
		for k, v := range r.Attributes {
			x.byAttr[attrValue{k, v}] = append(x.byAttr[attrValue{k, v}], pos)
		}
		if _, ok := r.Attributes["id"]; !ok && r.ID != "" {
			x.byAttr[attrValue{"id", r.ID}] = append(x.byAttr[attrValue{"id", r.ID}], pos)
		}
	}
	return x
}

// Len is the number of resources indexed.
func (x *ResourceIndex) Len() int { return len(x.all) }

// Query returns the resources q matches (ResourceQuery.Matches), in the
// order they were indexed; a nil q matches every one.
func (x *ResourceIndex) Query(q *ResourceQuery) []Resource {
	c := queryConstraint(q)
	candidates, narrowed := x.candidates(q)
	var out []Resource
	if !narrowed {
		for _, r := range x.all {
			if c.Matches(r) {
				out = append(out, r)
			}
		}
		return out
	}
	for _, i := range candidates {
		if r := x.all[i]; c.Matches(r) {
			out = append(out, r)
		}
	}
	return out
}

// candidates returns the smallest of the lists q narrows the catalog to
// (its collection's, and each pinned attribute value's), and false when
// q narrows nothing.
func (x *ResourceIndex) candidates(q *ResourceQuery) ([]int32, bool) {
	if q == nil {
		return nil, false
	}
	var best []int32
	narrowed := false
	pick := func(list []int32) {
		if !narrowed || len(list) < len(best) {
			best, narrowed = list, true
		}
	}
	if q.Collection != "" {
		pick(x.byCollection[q.Collection])
	}
	for k, v := range q.Filter {
		pick(x.byAttr[attrValue{k, v}])
	}
	return slices.Clip(best), narrowed
}
