package quickstart

import "embed"

// Files holds capgate.yaml, policy.yaml and policy_tests.yaml.
//
//go:embed *.yaml
var Files embed.FS
