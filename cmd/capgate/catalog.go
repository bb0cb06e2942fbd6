package main

import (
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/policy"
)

// loadCatalog reads the gateway config at path and returns the catalog a
// policy is validated against: the agents, grants, skills and A2E hosts
// the gateway fronts.
func loadCatalog(path string) (policy.Catalog, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return policy.Catalog{}, err
	}
	return cfg.Catalog(), nil
}
