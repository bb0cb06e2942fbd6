package impact

import (
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

// unnamed is the id of the synthetic principal no rule names.
const unnamed = "(unnamed)"

// defaultPurpose is the stated purpose the universe uses when no source
// gives one, so that require_purpose rules are reached.
const defaultPurpose = "a stated purpose"

// Sources is what a universe is built from besides the policies.
type Sources struct {
	// Catalog holds the agents, grants, skills and A2E hosts.
	Catalog policy.Catalog
	// Vocabulary is what the policies name (merge both policies').
	Vocabulary policy.Vocabulary
	// Principals are principals known from elsewhere (test cases, an audit
	// trail); each is probed like a synthetic one.
	Principals []policy.Principal
	// Requests are concrete capability requests (test cases, an audit
	// trail), decided as they are, besides the synthetic ones.
	Requests []policy.Input
	// Purposes are stated purposes known from elsewhere.
	Purposes []string
	// Now is the decision time of every synthetic request.
	Now time.Time
}

// Universe is the finite set of decisions two policies are compared on.
type Universe struct {
	// Principals are the principals probed.
	Principals []policy.Principal
	// Requests are the synthetic capability requests, each with its
	// principal; only the first grant of each is compared (the others are
	// the grants it requires).
	Requests []policy.Input
	// Observed are the requests given as Sources; every grant of each is
	// compared.
	Observed []policy.Input
	// A2E are the A2E handshakes, one capability each.
	A2E []policy.A2EInput
	// Ambient are the calls without a capability to legacy agents.
	Ambient []policy.AmbientInput
}

// Size is the number of decisions in u.
func (u *Universe) Size() int { return len(u.Requests) + len(u.Observed) + len(u.A2E) + len(u.Ambient) }

// NewUniverse builds the universe of s (see the package documentation).
func NewUniverse(s Sources) *Universe {
	u := &Universe{Principals: principals(s)}
	purposes := append([]string{""}, s.Purposes...)
	if len(s.Purposes) == 0 {
		purposes = append(purposes, defaultPurpose)
	}
	resources := resourceQueries(s.Vocabulary)
	for _, who := range u.Principals {
		for _, agent := range sorted(s.Catalog.Agents) {
			ac := s.Catalog.Agents[agent]
			for _, g := range sorted(ac.Grants) {
				grants := withRequires(ac, g)
				for _, res := range resources {
					for _, purpose := range purposes {
						u.Requests = append(u.Requests, policy.Input{Principal: who, Agent: agent,
							Grants: grants, Resource: res, Purpose: purpose, Now: s.Now})
					}
				}
			}
			if ac.Legacy {
				u.Ambient = append(u.Ambient, ambientCalls(who, agent, ac, s)...)
			}
		}
		for _, host := range sorted(s.Catalog.A2EHosts) {
			for _, c := range policy.A2ECapabilityNames() {
				u.A2E = append(u.A2E, policy.A2EInput{Principal: who, Host: host, Capabilities: []string{c}, Now: s.Now})
			}
		}
	}
	u.Observed = s.Requests
	return u
}

// withRequires is g followed by the grants it requires, transitively.
func withRequires(ac policy.AgentCatalog, g string) []string {
	out := []string{g}
	for i := 0; i < len(out); i++ {
		for _, r := range ac.Grants[out[i]].Requires {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// resourceQueries are no query, every named collection, and every named
// filter value alone and within every collection.
func resourceQueries(v policy.Vocabulary) []*policy.ResourceQuery {
	out := []*policy.ResourceQuery{nil}
	colls := append([]string{""}, v.Collections...)
	for _, c := range colls {
		if c != "" {
			out = append(out, &policy.ResourceQuery{Collection: c})
		}
		for _, k := range sorted(v.Filters) {
			for _, val := range v.Filters[k] {
				out = append(out, &policy.ResourceQuery{Collection: c, Filter: map[string]string{k: val}})
			}
		}
	}
	return out
}

// ambientCalls are every skill of a legacy agent by every named method.
func ambientCalls(who policy.Principal, agent string, ac policy.AgentCatalog, s Sources) []policy.AmbientInput {
	methods := slices.Compact(slices.Sorted(slices.Values(append([]string{"message/send"}, s.Vocabulary.Methods...))))
	skills := append([]string{""}, sorted(ac.Skills)...)
	var out []policy.AmbientInput
	for _, m := range methods {
		for _, sk := range skills {
			out = append(out, policy.AmbientInput{Principal: who, Agent: agent, Skill: sk, Method: m, Now: s.Now})
		}
	}
	return out
}

// principals synthesizes the probed principals (see the package
// documentation), then adds the given ones, each once.
func principals(s Sources) []policy.Principal {
	v := s.Vocabulary
	sets := [][]string{nil}
	for i, g := range v.Groups {
		sets = append(sets, []string{g})
		for _, h := range v.Groups[i+1:] {
			sets = append(sets, []string{g, h})
		}
	}
	sets = append(sets, v.GroupSets...)
	var out []policy.Principal
	seen := map[string]bool{}
	add := func(p policy.Principal) {
		if k := principalKey(p); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	extras := []func(*policy.Principal){func(*policy.Principal) {}}
	for _, iss := range v.Issuers {
		extras = append(extras, func(p *policy.Principal) { p.Issuer = iss })
	}
	for _, k := range sorted(v.Claims) {
		for _, val := range v.Claims[k] {
			extras = append(extras, func(p *policy.Principal) { p.Claims = map[string]any{k: val} })
		}
	}
	for _, set := range sets {
		for _, extra := range extras {
			p := policy.Principal{ID: unnamed, Groups: set}
			extra(&p)
			add(p)
		}
	}
	for _, id := range v.IDs {
		add(policy.Principal{ID: id})
		for _, g := range v.Groups {
			add(policy.Principal{ID: id, Groups: []string{g}})
		}
	}
	for _, p := range s.Principals {
		add(p)
	}
	return out
}

// principalKey identifies a principal for deduplication.
func principalKey(p policy.Principal) string {
	return p.ID + "\x00" + p.Issuer + "\x00" + strings.Join(p.Groups, ",") + "\x00" + claimsText(p.Claims)
}

// sorted returns the keys of m in order.
func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
