package mcpfront

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// MCP clients find out how to authenticate as OAuth 2.0 clients of a
// protected resource do: a 401 names the resource's metadata (RFC 9728)
// in its WWW-Authenticate challenge, and the metadata names the
// authorization servers whose tokens the resource accepts.

// MetadataPrefix is the well-known path of Protected Resource Metadata
// (RFC 9728 section 3): the metadata of the resource /mcp/files is at
// MetadataPrefix + "/mcp/files".
const MetadataPrefix = "/.well-known/oauth-protected-resource"

// ResourceMetadata is a server's Protected Resource Metadata.
type ResourceMetadata struct {
	// Resource is the server's resource URI: the gateway's URL for it.
	Resource string `json:"resource"`
	// AuthorizationServers are the OIDC issuers the gateway trusts.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// BearerMethodsSupported is always ["header"]: the token travels in
	// the Authorization header only.
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	// ResourceName names the server to people.
	ResourceName string `json:"resource_name,omitempty"`
}

// serveMetadata serves a server's Protected Resource Metadata, without
// authentication: it is what a client reads to learn how to authenticate.
func (f *Front) serveMetadata(w http.ResponseWriter, r *http.Request) {
	s, ok := f.servers[chi.URLParam(r, "server")]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown MCP server"})
		return
	}
	w.Header().Set("Cache-Control", "max-age=300")
	writeJSON(w, http.StatusOK, ResourceMetadata{
		Resource: s.resource, AuthorizationServers: f.cfg.OIDCIssuers,
		BearerMethodsSupported: []string{"header"}, ResourceName: "MCP server " + s.cfg.Name + " through capgate",
	})
}

// authenticate authenticates every request to a server before it reaches
// the front: a request without valid credentials gets a 401 whose
// challenge names the server's metadata, and never reaches the server.
func (f *Front) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, ok := f.servers[chi.URLParam(r, "server")]
		if !ok {
			jsonrpc.WriteResponse(w, http.StatusNotFound, jsonrpc.NewError(nil, &jsonrpc.Error{
				Code: jsonrpc.CodeInvalidRequest, Message: "unknown MCP server",
				Data: map[string]string{"reason": "unknown_server"},
			}))
			return
		}
		p, err := f.deps.Authenticator.AuthenticateRequestFor(r.Context(), r, s.resource)
		if err != nil {
			f.deps.Logger.DebugContext(r.Context(), "mcp request refused", "server", s.cfg.Name, "error", err)
			f.refuseAuthn(w, s, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(authn.WithPrincipal(r.Context(), p)))
	})
}

// refuseAuthn answers a failed authentication: missing or invalid
// credentials get the 401 challenge naming the metadata; an issuer
// outage and anything else are answered as every front answers them.
func (f *Front) refuseAuthn(w http.ResponseWriter, s *server, err error) {
	challenge := "Bearer resource_metadata=" + strconv.Quote(f.metadataURL(s))
	body := `{"error":"unauthorized"}`
	switch {
	case errors.Is(err, authn.ErrInvalidCredentials):
		challenge += `, error="invalid_token"`
		body = `{"error":"invalid_token"}`
	case !errors.Is(err, authn.ErrNoCredentials):
		authn.WriteError(w, err)
		return
	}
	h := w.Header()
	h.Set("WWW-Authenticate", challenge)
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(body + "\n"))
}

// metadataURL is where a server's metadata is served.
func (f *Front) metadataURL(s *server) string {
	return f.cfg.PublicURL + MetadataPrefix + "/mcp/" + s.cfg.Name
}

// methodNotAllowed answers GET and DELETE outside a session: there is no
// standalone stream to open and no session to end, and a client takes
// 405 to mean exactly that.
func methodNotAllowed(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
