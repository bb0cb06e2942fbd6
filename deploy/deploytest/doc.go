// Package deploytest holds only tests: they check the deployment material
// capgate ships (deploy/Dockerfile, docker-compose.yaml and its config in
// deploy/examples/compose/, deploy/kubernetes/ and the production example
// in deploy/examples/production/) against the code it deploys.
//
// # Why it exists
//
// No Docker engine or Kubernetes cluster runs in CI, and deployment files
// rot silently: a renamed flag, a moved binary, a config key the loader
// refuses, a policy file that is not mounted. These tests catch that
// drift without running a container.
//
// # What it guarantees
//
//   - Every YAML and JSON file under deploy/ and docker-compose.yaml
//     parses; Kubernetes files are decoded document by document.
//   - The example configs pass config.Load and the JSON Schema
//     deploy/capgate.schema.json, and their policies load against the
//     configs' catalogs (the production policy also passes its tests).
//   - Every capgate subcommand and flag used by the Dockerfile, the compose
//     file and the manifests, or quoted in their comments, is defined in
//     cmd/capgate (read as Go source, not run).
//   - The binary path, image, port and config path agree between the
//     Dockerfile, the compose file and the manifests.
//   - Every file a config names (policy, keys, client secrets) exists or is
//     mounted where the config looks for it; the Kubernetes ConfigMaps are
//     byte-for-byte the production example files.
//   - The compose config really serves as two replicas: both are built
//     in-process with gateway.FromConfig on one throwaway redis-server
//     (installed by CI; see revocation/redistest), and a capability,
//     delegation and revocation cross between them.
//   - The Kubernetes and compose hardening stays in place: non-root,
//     read-only root file system, no privilege escalation, probes on
//     /readyz and /healthz, two replicas and a disruption budget.
package deploytest
