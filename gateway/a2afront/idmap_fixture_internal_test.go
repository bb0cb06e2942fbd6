package a2afront

import (
	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/policy"
)

// testIDs is the id map of a capability whose resources are mapped
// (real id → handle), on an agent whose catalog also holds others, which
// answers redact or, with refuse, refuse. It returns the agent and scope
// too, for the fast path that reads them.
func testIDs(mapped [][2]string, others []string, refuse bool) (*agent, *enforce.Scope, *enforce.IDMap) {
	s := &enforce.Scope{Claims: &captoken.Claims{}}
	for _, m := range mapped {
		s.Resources = append(s.Resources, enforce.Resource{Handle: m[1], ID: m[0]})
		s.Claims.Handles = append(s.Claims.Handles, m[1])
	}
	ac := config.Agent{UnmappedIDs: config.UnmappedRedact}
	if refuse {
		ac.UnmappedIDs = config.UnmappedRefuse
	}
	for _, id := range others {
		ac.Catalog = append(ac.Catalog, policy.Resource{ID: id})
	}
	a := &agent{cfg: ac, known: knownIDs(ac)}
	return a, s, s.IDMap(a.known)
}
