package mcpfront

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// MCP sessions (Mcp-Session-Id, the 2025-11-25 revision) are bound to the
// principal that opened them. The server assigns a session id in its
// answer to initialize; the front learns it there, from an answer to a
// call it forwarded for an authenticated principal, and binds it to that
// principal in the session index (Deps.Sessions: a taskindex.Index, on
// Redis when the gateway has one, so every replica knows the binding).
// A request naming a session is forwarded only for the principal bound
// to it: anyone else, and any session the index does not know (never
// opened through the gateway, or forgotten), gets 404, which a client
// takes to mean "start a new session", and the server sees nothing. A
// session index that cannot answer refuses the request: the gateway
// fails closed.

// errForeignSession is the answer hook's error when the server assigned
// a session id already bound to another principal.
var errForeignSession = errors.New("mcpfront: the server assigned a session bound to another principal")

// sessionKey is the session index's namespace for a server's sessions:
// the index is shared with task ownership.
func sessionKey(s *server) string { return "mcp-session/" + s.cfg.Name }

// checkSession refuses a request naming a session that is not the
// caller's. It writes the refusal and reports false; true lets the
// request on.
func (f *Front) checkSession(w http.ResponseWriter, r *http.Request, s *server, principal string) bool {
	if !oneSessionHeader(r.Header) {
		jsonrpc.WriteResponse(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.NewCodeError(jsonrpc.CodeInvalidRequest,
			"a request names at most one session, in one "+mcp.HeaderSessionID+" header")))
		return false
	}
	id := strings.TrimSpace(r.Header.Get(mcp.HeaderSessionID))
	if id == "" {
		return true
	}
	owners, err := f.deps.Sessions.Owners(r.Context(), sessionKey(s), []string{id})
	switch {
	case err != nil:
		f.deps.Logger.ErrorContext(r.Context(), "session index unavailable", "server", s.cfg.Name, "error", err)
		jsonrpc.WriteResponse(w, http.StatusServiceUnavailable, jsonrpc.NewError(nil, issue.StoreDown(enforce.TaskIndex, "")))
		return false
	case len(owners) != 1 || owners[0] != principal:
		f.deps.Logger.InfoContext(r.Context(), "mcp session refused", "server", s.cfg.Name, "principal", principal)
		jsonrpc.WriteResponse(w, http.StatusNotFound, jsonrpc.NewError(nil, &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest, Message: "unknown session: open a new one with initialize",
			Data: map[string]string{"reason": "unknown_session"},
		}))
		return false
	}
	// A session in use stays bound: servers name the session in their
	// answer to initialize alone (the Go SDK's do), so the binding is
	// renewed here, by its owner, on every request that names it.
	if _, err := f.deps.Sessions.Claim(r.Context(), sessionKey(s), principal, []string{id}); err != nil {
		f.deps.Logger.ErrorContext(r.Context(), "session index unavailable", "server", s.cfg.Name, "error", err)
		jsonrpc.WriteResponse(w, http.StatusServiceUnavailable, jsonrpc.NewError(nil, issue.StoreDown(enforce.TaskIndex, "")))
		return false
	}
	return true
}

// bindSession binds the session a server assigned in its answer to a
// forwarded call to the caller. It fails when the binding cannot be
// recorded, or the id is already another principal's: the answer is then
// refused, and the caller never learns a session it could not use.
func (f *Front) bindSession(ctx context.Context, resp *http.Response, c *call) error {
	id := strings.TrimSpace(resp.Header.Get(mcp.HeaderSessionID))
	if id == "" {
		return nil
	}
	owners, err := f.deps.Sessions.Claim(ctx, sessionKey(c.server), c.principal.ID, []string{id})
	switch {
	case err != nil:
		return fmt.Errorf("mcpfront: session index: %w", err)
	case len(owners) != 1 || owners[0] != c.principal.ID:
		return errForeignSession
	}
	return nil
}

// oneSessionHeader reports whether h names a session at most once: one
// Mcp-Session-Id value, and no header a lenient server stack would read
// as it (another case, '_' for '-'). The front checks one value; a server
// reading another would act in a session the front never checked.
func oneSessionHeader(h http.Header) bool {
	for k, v := range h {
		if strings.EqualFold(strings.ReplaceAll(k, "_", "-"), mcp.HeaderSessionID) &&
			(k != http.CanonicalHeaderKey(mcp.HeaderSessionID) || len(v) > 1) {
			return false
		}
	}
	return true
}
