package documents

import (
	"context"
	"encoding/json"
	"fmt"
)

// ResolveParams are the params of a2a/resources/resolve: the gateway asks
// which resources match a SEP resourceQuery. Principal is informative; the
// gateway applies policy on top of the answer.
type ResolveParams struct {
	Principal  string            `json:"principal"`  // user principal the query runs for, e.g. "user:alice@example.com"
	Collection string            `json:"collection"` // collection to search; "" means all
	Filter     map[string]string `json:"filter"`     // attributes that must match exactly
}

// Resource is one resolved resource.
type Resource struct {
	ID          string            `json:"id"`          // real resource id, e.g. "reports/q1-financial"
	Collection  string            `json:"collection"`  // its collection, e.g. "reports"
	DisplayName string            `json:"displayName"` // the title shown with its handle
	Attributes  map[string]string `json:"attributes"`  // filterable attributes, never null
}

// ResolveResult is the result of a2a/resources/resolve.
type ResolveResult struct {
	Resources []Resource `json:"resources"` // matching resources sorted by id, never null
}

// Resolve returns the documents in collection (every collection when it
// is empty) whose attributes equal every filter value exactly, sorted by
// id. A filter key the document lacks never matches.
func (a *Agent) Resolve(collection string, filter map[string]string) []Resource {
	out := []Resource{}
	for _, d := range a.docs.all() {
		if collection != "" && d.Collection != collection {
			continue
		}
		if !matches(d.Attributes, filter) {
			continue
		}
		attrs := d.Attributes
		if attrs == nil {
			attrs = map[string]string{}
		}
		out = append(out, Resource{ID: d.ID, Collection: d.Collection, DisplayName: d.Title, Attributes: attrs})
	}
	return out
}

func matches(attrs, filter map[string]string) bool {
	for k, want := range filter {
		got, ok := attrs[k]
		if !ok || got != want {
			return false
		}
	}
	return true
}

// resolve serves a2a/resources/resolve.
func (a *Agent) resolve(_ context.Context, call Call) (any, error) {
	var p struct {
		Principal  string          `json:"principal"`
		Collection string          `json:"collection"`
		Filter     json.RawMessage `json:"filter"`
	}
	if len(call.Params) > 0 && string(call.Params) != "null" {
		if err := decodeStrict(call.Params, &p, ErrInvalidParams, "principal", "collection", "filter"); err != nil {
			return nil, fmt.Errorf("a2a/resources/resolve params: %w", err)
		}
	}
	var filter map[string]string
	if len(p.Filter) > 0 && string(p.Filter) != "null" {
		if err := decodeStrict(p.Filter, &filter, ErrInvalidParams); err != nil {
			return nil, fmt.Errorf("a2a/resources/resolve filter (values must be strings): %w", err)
		}
	}
	return ResolveResult{Resources: a.Resolve(p.Collection, filter)}, nil
}
