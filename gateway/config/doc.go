// Package config is capgate's gateway configuration: the listeners, the
// upstream agents and their capability grants, the trusted OIDC issuers, the
// dev API keys and the grant-policy file.
//
// The file is YAML decoded strictly: an unknown key is an error, and Load
// reports every problem it finds at once, each as file:line:col and its key
// path, so an operator fixes a config in one pass rather than one error per
// restart.
//
// Config is built from the packages' own typed configs where they exist:
// oidc and dev_keys are authn.IssuerConfig and authn.DevKey, and limits
// holds jsonrpc.Limits. Each package defaults and validates its own part;
// Config.Validate joins every package's problems with its own. The
// fronts' parts (agents, a2e_hosts) are defined here and validated here:
// config imports no front, and each front builds itself from its part
// (a2afront.ConfigFrom, a2efront.Open). Load never applies defaults
// that weaken security: algorithms are asymmetric only, dev keys are stored
// as hashes, and upstream credentials come from the environment or a file,
// never from the caller.
package config
