package policytest

import "github.com/capgate/capgate/policy"

// QuickstartCatalog returns the catalog of the quickstart world: the
// documents agent with its three grants and five skills, the summarizer
// agent with no grants, the notes agent with two grants and two skills,
// the files MCP server with two grants and three tools, and the lab A2E
// host offering tools, memory and env.
// Every call returns a fresh value.
func QuickstartCatalog() policy.Catalog {
	return policy.Catalog{
		Agents: map[string]policy.AgentCatalog{
			"documents": {
				Grants: map[string]policy.Grant{
					"documents:read": {ID: "documents:read", Operations: []string{"retrieve", "search", "list"}, Attenuable: true},
					"documents:write": {ID: "documents:write", Operations: []string{"create", "update", "delete"},
						Attenuable: true, Requires: []string{"documents:read"}},
					"documents:admin": {ID: "documents:admin", Operations: []string{"*"}, Attenuable: false, Legacy: true},
				},
				Skills: map[string]string{
					"retrieve_document": "retrieve",
					"search_documents":  "search",
					"list_documents":    "list",
					"update_document":   "update",
					"delete_document":   "delete",
				},
			},
			"summarizer": {},
			"notes": {
				Grants: map[string]policy.Grant{
					"notes:read":  {ID: "notes:read", Operations: []string{"read"}, Attenuable: true},
					"notes:write": {ID: "notes:write", Operations: []string{"write"}, Attenuable: true, Requires: []string{"notes:read"}},
				},
				Skills: map[string]string{"notes.read": "read", "notes.write": "write"},
			},
			"files": {
				Grants: map[string]policy.Grant{
					"files:read":  {ID: "files:read", Operations: []string{"read", "search"}, Attenuable: true},
					"files:write": {ID: "files:write", Operations: []string{"write"}, Attenuable: true, Requires: []string{"files:read"}},
				},
				Skills: map[string]string{"read_file": "read", "search_files": "search", "write_file": "write"},
			},
		},
		A2EHosts: map[string]policy.A2EHostCatalog{
			"lab": {Capabilities: []string{"tools", "memory", "env"}},
		},
	}
}

// QuickstartPrincipals returns the quickstart principals keyed by short
// name: alice, bob, carol and summarizer. Every call returns fresh values.
func QuickstartPrincipals() map[string]policy.Principal {
	return map[string]policy.Principal{
		"alice":      {ID: "user:alice@example.com", Issuer: "dev", Groups: []string{"finance"}},
		"bob":        {ID: "user:bob@example.com", Issuer: "dev", Groups: []string{"contractors"}},
		"carol":      {ID: "user:carol@example.com", Issuer: "dev", Groups: []string{"hr", "editors"}},
		"summarizer": {ID: "agent:summarizer", Issuer: "dev"},
	}
}
