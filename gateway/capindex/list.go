package capindex

import (
	"slices"
	"sort"
)

// MaxList bounds the records one List returns.
const MaxList = 1000

// Filter narrows List. An empty field matches every record.
type Filter struct {
	// Principal matches a record whose principal or holder is this one.
	Principal string
	// Agent matches the audience agent.
	Agent string
	// Grant matches the grant.
	Grant string
	// Limit is the most records returned; 0, or more than MaxList, means
	// MaxList.
	Limit int
}

// Max returns the number of records List may return for f.
func (f Filter) Max() int {
	if f.Limit <= 0 || f.Limit > MaxList {
		return MaxList
	}
	return f.Limit
}

// Match reports whether r passes the filter.
func (f Filter) Match(r Record) bool {
	return (f.Principal == "" || r.Principal == f.Principal || r.Holder == f.Principal) &&
		(f.Agent == "" || r.Agent == f.Agent) &&
		(f.Grant == "" || r.Grant == f.Grant)
}

// sortAndCut sorts records in issue order (ties by id) and keeps the
// newest max of them.
func sortAndCut(out []Record, max int) []Record {
	sort.Slice(out, func(i, j int) bool {
		if out[i].IssuedAt.Equal(out[j].IssuedAt) {
			return out[i].CapabilityID < out[j].CapabilityID
		}
		return out[i].IssuedAt.Before(out[j].IssuedAt)
	})
	if len(out) > max {
		out = slices.Clone(out[len(out)-max:])
	}
	return out
}
