package config

import (
	"errors"
	"strings"
	"testing"
)

// mcpDoc is a minimal config with one agent and the MCP server server.
func mcpDoc(server string) string {
	return `
listen: {addr: "127.0.0.1:0"}
public_url: http://127.0.0.1:8080
agents: [{name: a, url: "http://127.0.0.1:1/"}]
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:a@example.com"}]
policy: {file: p.yaml}
mcp_servers:
  - ` + server + "\n"
}

const filesServer = `{name: files, url: "http://127.0.0.1:3/mcp", principal: "agent:files",
     grants: [{id: "files:read", operations: [read], attenuable: true}],
     tools: {read_file: {operation: read, resources: [/path]}, search_files: {operation: read}},
     catalog: [{id: "corpus/a.md", display_name: A, collection: files}]}`

func TestParseMCPServers(t *testing.T) {
	tests := []struct {
		name    string
		server  string
		wantErr error
		want    string
	}{
		{"minimal", filesServer, nil, ""},
		{"unknown key", strings.Replace(filesServer, "principal:", "principle:", 1), ErrInvalid, "mcp_servers[0].principle: unknown key"},
		{"unknown tool key", strings.Replace(filesServer, "resources: [/path]", "resource: [/path]", 1), ErrInvalid, "mcp_servers[0].tools.read_file.resource: unknown key"},
		{"name of an agent", strings.Replace(filesServer, "name: files", "name: a", 1), ErrInvalid, `mcp_servers[0].name: "a" is already the name`},
		{"bad url", strings.Replace(filesServer, `"http://127.0.0.1:3/mcp"`, "ftp://x", 1), ErrInvalid, "mcp_servers[0].url"},
		{"bad pointer", strings.Replace(filesServer, "[/path]", "[path]", 1), ErrInvalid, "mcp_servers[0].tools.read_file.resources[0]: mcp: invalid JSON pointer"},
		{"operation in no grant", strings.Replace(filesServer, "search_files: {operation: read}", "search_files: {operation: write}", 1), ErrInvalid, `tools.search_files.operation: operation "write" is in no grant`},
		{"no tools", strings.Replace(filesServer, "tools: {read_file: {operation: read, resources: [/path]}, search_files: {operation: read}},", "", 1), ErrInvalid, "mcp_servers[0].tools: at least one tool"},
		{"bad principal", strings.Replace(filesServer, `"agent:files"`, "files", 1), ErrInvalid, "mcp_servers[0].principal"},
		{"bad grant id", strings.Replace(filesServer, `"files:read"`, "files", 1), ErrInvalid, "mcp_servers[0].grants[0].id"},
		{"static bearer from env", strings.Replace(filesServer, "catalog:", `upstream_auth: {bearer_env: FILES_TOKEN},
     catalog:`, 1), nil, ""},
		{"static bearer from a file", strings.Replace(filesServer, "catalog:", `upstream_auth: {bearer_file: files.token},
     catalog:`, 1), nil, ""},
		{"client credentials", strings.Replace(filesServer, "catalog:", `upstream_auth: {token_url: "https://idp.example/token", client_id: capgate, client_secret_env: FILES_SECRET},
     catalog:`, 1), nil, ""},
		{"two credentials", strings.Replace(filesServer, "catalog:", `upstream_auth: {bearer_env: A, bearer_file: b},
     catalog:`, 1), ErrInvalid, "mcp_servers[0].upstream_auth: exactly one of bearer_env, bearer_file and token_url"},
		{"no credential", strings.Replace(filesServer, "catalog:", `upstream_auth: {scopes: [x]},
     catalog:`, 1), ErrInvalid, "mcp_servers[0].upstream_auth: exactly one of"},
		{"a bearer with a client", strings.Replace(filesServer, "catalog:", `upstream_auth: {bearer_env: A, client_id: c},
     catalog:`, 1), ErrInvalid, "mcp_servers[0].upstream_auth: a static bearer token takes no client_id"},
		{"client credentials without a secret", strings.Replace(filesServer, "catalog:", `upstream_auth: {token_url: "https://idp.example/token", client_id: capgate},
     catalog:`, 1), ErrInvalid, "mcp_servers[0].upstream_auth: exactly one of client_secret_env and client_secret_file"},
		{"resources", strings.Replace(filesServer, "catalog:", "resources: {operation: read},\n     catalog:", 1), nil, ""},
		{"resources of no grant's operation", strings.Replace(filesServer, "catalog:", "resources: {operation: write},\n     catalog:", 1), ErrInvalid, `mcp_servers[0].resources.operation: operation "write" is in no grant`},
		{"resources without an operation", strings.Replace(filesServer, "catalog:", "resources: {},\n     catalog:", 1), ErrInvalid, `mcp_servers[0].resources.operation`},
		{"prompts", strings.Replace(filesServer, "catalog:", "prompts: {operation: read},\n     catalog:", 1), nil, ""},
		{"prompts of no grant's operation", strings.Replace(filesServer, "catalog:", "prompts: {operation: write},\n     catalog:", 1), ErrInvalid, `mcp_servers[0].prompts.operation: operation "write" is in no grant`},
		{"unknown auth key", strings.Replace(filesServer, "catalog:", `upstream_auth: {bearer_envv: A},
     catalog:`, 1), ErrInvalid, "mcp_servers[0].upstream_auth.bearer_envv: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(mcpDoc(tt.server)), "t.yaml")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %v, want it to mention %q", err, tt.want)
				}
				return
			}
			s := cfg.MCPServers[0]
			if s.Tools["read_file"].Resources[0] != "/path" || s.Catalog[0].ID != "corpus/a.md" {
				t.Errorf("server not decoded: %+v", s)
			}
		})
	}
}

// TestCatalogListsMCPServers: an MCP server reaches the policy's catalog
// as a target, its tools as the skills of their operations.
func TestCatalogListsMCPServers(t *testing.T) {
	cfg, err := Parse([]byte(mcpDoc(filesServer)), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat := cfg.Catalog()
	files, ok := cat.Agents["files"]
	if !ok {
		t.Fatalf("catalog targets: %v", cat.Agents)
	}
	if _, ok := files.Grants["files:read"]; !ok || files.Skills["read_file"] != "read" {
		t.Errorf("files in the catalog: %+v", files)
	}
}
