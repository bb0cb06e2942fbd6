// Package quickstart embeds the quickstart world's config and policy, so
// that `capgate demo` runs on a fresh machine with no files to find.
package quickstart

import "embed"

// Files holds capgate.yaml, policy.yaml and policy_tests.yaml.
//
//go:embed *.yaml
var Files embed.FS
