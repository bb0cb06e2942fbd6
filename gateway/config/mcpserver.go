package config

import (
	"fmt"
	"slices"
	"sort"

	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/policy"
)

// MCPServer is one upstream MCP server, under mcp_servers, fronted at
// /mcp/{name} over Streamable HTTP. It is a target like an agent: its
// grants reach the policy's catalog under its name, and policy rules name
// it as they name an agent. The gateway never sends it the caller's
// credential; with upstream_auth it sends its own.
type MCPServer struct {
	// Name is the path segment under /mcp/, and the target's name in the
	// policy and in the capabilities issued for it.
	Name string `yaml:"name"`
	// URL is the server's Streamable HTTP endpoint.
	URL string `yaml:"url"`
	// Principal is the server's own identity, for example agent:files.
	Principal string `yaml:"principal,omitempty"`
	// Grants are the capability grants the server offers.
	Grants []policy.Grant `yaml:"grants,omitempty"`
	// Tools are the tools a caller may call, each with the operation it
	// performs and the arguments that name resources. A tool not listed
	// here is never called through the gateway.
	Tools map[string]MCPTool `yaml:"tools"`
	// Catalog is the server's resource catalog: the real ids the answers
	// are checked for beyond a capability's own.
	Catalog []policy.Resource `yaml:"catalog,omitempty"`
	// UnmappedIDs says what happens to a catalog id in an answer that maps
	// to no handle the caller holds: UnmappedRedact (default) or
	// UnmappedRefuse.
	UnmappedIDs string `yaml:"unmapped_ids,omitempty"`
	// UpstreamAuth is the gateway's own credential for the server.
	UpstreamAuth *MCPUpstreamAuth `yaml:"upstream_auth,omitempty"`
	// Resources, when set, serves the server's resources/list and
	// resources/read through the gateway, scoped to a capability; without
	// it they are refused.
	Resources *MCPResources `yaml:"resources,omitempty"`
	// Prompts, when set, passes the server's prompts/list and prompts/get
	// to a caller the policy could grant the operation on this server;
	// without it they are refused.
	Prompts *MCPPrompts `yaml:"prompts,omitempty"`
}

// MCPPrompts is how the gateway passes an MCP server's prompts: per
// policy, with no catalog id in the answer.
type MCPPrompts struct {
	// Operation is the operation the policy must be able to grant the
	// caller on this server for its prompts to pass.
	Operation string `yaml:"operation"`
}

// MCPResources is how the gateway serves an MCP server's resources: a
// resource's URI is its real id (an id of the catalog), which a caller
// names only by a handle of its capability.
type MCPResources struct {
	// Operation is the operation resources/read and resources/list need;
	// the capability presented must cover it.
	Operation string `yaml:"operation"`
}

// MCPUpstreamAuth is the credential the gateway sends an MCP server in
// place of the caller's: a static bearer token read from an environment
// variable or a file (bearer_env, bearer_file), or an OAuth 2.0
// client-credentials token as for an agent (token_url, client_id, and
// client_secret_env or client_secret_file). Exactly one of bearer_env,
// bearer_file and token_url is set.
type MCPUpstreamAuth struct {
	// BearerEnv names the environment variable holding a static token.
	BearerEnv string `yaml:"bearer_env,omitempty"`
	// BearerFile names the file holding a static token.
	BearerFile string `yaml:"bearer_file,omitempty"`
	// UpstreamAuth is the client-credentials form.
	UpstreamAuth `yaml:",inline"`
}

// validate checks one MCP server's upstream_auth at path p.
func (u *MCPUpstreamAuth) validate(p string, add addFunc) {
	set := 0
	for _, v := range []string{u.BearerEnv, u.BearerFile, u.TokenURL} {
		if v != "" {
			set++
		}
	}
	switch {
	case set != 1:
		add(p, "exactly one of bearer_env, bearer_file and token_url is required")
	case u.TokenURL != "":
		u.UpstreamAuth.validate(p, add)
	case u.ClientID != "" || u.ClientSecretEnv != "" || u.ClientSecretFile != "" || len(u.Scopes) > 0:
		add(p, "a static bearer token takes no client_id, client_secret_env, client_secret_file or scopes")
	}
}

// hasOperation reports whether op is a non-empty operation of one of the
// server's grants (or a grant covers every operation).
func (s MCPServer) hasOperation(op string) bool {
	if op == "" {
		return false
	}
	for _, g := range s.Grants {
		if slices.Contains(g.Operations, op) || slices.Contains(g.Operations, "*") {
			return true
		}
	}
	return false
}

// MCPTool is what the gateway knows of one tool.
type MCPTool struct {
	// Operation is the operation a call of the tool performs; the
	// capability presented must cover it.
	Operation string `yaml:"operation"`
	// Resources are JSON pointers (RFC 6901) into the call's arguments,
	// one per argument that names a resource, for example /path. Each
	// such argument must hold a handle of the capability (or a list of
	// them), which the gateway replaces with the real id.
	Resources []string `yaml:"resources,omitempty"`
}

func (c *Config) validateMCPServers(add addFunc) {
	seen := map[string]bool{}
	for _, a := range c.Agents {
		seen[a.Name] = true
	}
	for i, s := range c.MCPServers {
		p := fmt.Sprintf("mcp_servers[%d]", i)
		if !agentName.MatchString(s.Name) {
			add(p+".name", "%q must be lower-case letters, digits and dashes", s.Name)
		} else if seen[s.Name] {
			add(p+".name", "%q is already the name of an agent or MCP server: the policy names targets by name", s.Name)
		}
		seen[s.Name] = true
		if err := checkURL(s.URL); err != nil {
			add(p+".url", "%v", err)
		}
		if s.Principal != "" && !validPrincipal(s.Principal) {
			add(p+".principal", "%q must start with user: or agent:", s.Principal)
		}
		Agent{Grants: s.Grants}.validateGrants(p, add)
		s.validateTools(p, add)
		if s.UpstreamAuth != nil {
			s.UpstreamAuth.validate(p+".upstream_auth", add)
		}
		if s.Resources != nil && !s.hasOperation(s.Resources.Operation) {
			add(p+".resources.operation", "operation %q is in no grant of this server", s.Resources.Operation)
		}
		if s.Prompts != nil && !s.hasOperation(s.Prompts.Operation) {
			add(p+".prompts.operation", "operation %q is in no grant of this server", s.Prompts.Operation)
		}
		switch s.UnmappedIDs {
		case "", UnmappedRedact, UnmappedRefuse:
		default:
			add(p+".unmapped_ids", "%q must be %s or %s", s.UnmappedIDs, UnmappedRedact, UnmappedRefuse)
		}
	}
}

// validateTools checks each tool's operation against the grants and its
// resource pointers, in a stable order.
func (s MCPServer) validateTools(p string, add addFunc) {
	if len(s.Tools) == 0 {
		add(p+".tools", "at least one tool is required: a tool not listed is never called")
	}
	ops := map[string]bool{}
	for _, g := range s.Grants {
		for _, op := range g.Operations {
			ops[op] = true
		}
	}
	names := make([]string, 0, len(s.Tools))
	for name := range s.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t, tp := s.Tools[name], p+".tools."+name
		switch {
		case t.Operation == "":
			add(tp+".operation", "is required")
		case !ops[t.Operation] && !ops["*"]:
			add(tp+".operation", "operation %q is in no grant of this server", t.Operation)
		}
		for j, r := range t.Resources {
			if _, err := mcp.ParsePointer(r); err != nil {
				add(fmt.Sprintf("%s.resources[%d]", tp, j), "%v", err)
			}
		}
	}
}

// mcpCatalog adds each MCP server to cat as the target it is: its grants,
// and its tools as the skills that perform each operation.
func (c *Config) mcpCatalog(cat policy.Catalog) {
	for _, s := range c.MCPServers {
		ac := policy.AgentCatalog{Grants: map[string]policy.Grant{}, Skills: map[string]string{}}
		for _, g := range s.Grants {
			ac.Grants[g.ID] = g
		}
		for name, t := range s.Tools {
			ac.Skills[name] = t.Operation
		}
		cat.Agents[s.Name] = ac
	}
}
