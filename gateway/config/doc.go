// Package config is capgate's gateway configuration: the listeners, the
// upstream agents and their capability grants, the trusted OIDC issuers, the
// dev API keys and the grant-policy file.
//
// The file is YAML decoded strictly: an unknown key is an error, and Load
// reports every problem it finds at once, each with its path in the file
// (and its line where the file has one), so an operator fixes a config in
// one pass rather than one error per restart. Load never applies defaults
// that weaken security: algorithms are asymmetric only, dev keys are stored
// as hashes, and upstream credentials come from the environment or a file,
// never from the caller.
package config
