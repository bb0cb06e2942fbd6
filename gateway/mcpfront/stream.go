package mcpfront

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/gateway/proxy"
)

// The server-to-client side of a session (2025-11-25). A client opens the
// standalone stream with GET /mcp/{server} naming its session; the front
// forwards it only for the principal the session is bound to, and every
// event on it (the server's requests and notifications) passes the answer
// pipeline, its catalog ids redacted, as a prompt's answer is: the stream
// acts under no capability. The client answers a server's request by
// POSTing a JSON-RPC response in the same session, which the front
// forwards as it came, again only for the session's principal and only
// when it names no real id of the catalog (it acts under no capability,
// as a prompt does); and it
// ends the session with DELETE, forwarded on the same terms. Outside a
// session there is no such stream or end (405) and no response to
// forward.

// serveStream is GET /mcp/{server}, the standalone stream of a session,
// and DELETE /mcp/{server}, the session's end: both forwarded only for
// the session's principal.
func (f *Front) serveStream(w http.ResponseWriter, r *http.Request) {
	s, p, ok := f.caller(w, r)
	if !ok {
		return
	}
	if sessionID(r) == "" {
		methodNotAllowed(w, r)
		return
	}
	if !f.checkSession(w, r, s, p.ID) {
		return
	}
	c := &call{server: s, principal: p, http: r, headersScoped: true, req: jsonrpc.Request{Method: r.Method}}
	if e := f.notFrozen(r.Context(), c); e != nil {
		jsonrpc.WriteResponse(w, http.StatusForbidden, jsonrpc.NewError(nil, e))
		return
	}
	timeout := f.cfg.UpstreamTimeout
	if r.Method == http.MethodGet {
		timeout = f.cfg.StreamTimeout
		_ = http.NewResponseController(w).SetWriteDeadline(f.deps.Now().Add(timeout))
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	u := &outbound{c: c, method: r.Method, vouched: &proxy.Context{Principal: p.ID, Holder: p.ID}}
	s.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
}

// forwardResponse forwards a client's response to a server's request in
// the caller's own session (checkSession let it on), as it came; the
// server's acknowledgement passes the pipeline like any answer.
func (f *Front) forwardResponse(w http.ResponseWriter, r *http.Request, c *call) {
	c.headersScoped = true
	ctx, cancel := context.WithTimeout(r.Context(), f.cfg.UpstreamTimeout)
	defer cancel()
	u := &outbound{c: c, body: c.req.Raw, vouched: &proxy.Context{Principal: c.principal.ID, Holder: c.principal.ID}}
	c.server.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
}

// sessionID is the session a request names, or "".
func sessionID(r *http.Request) string {
	return strings.TrimSpace(r.Header.Get(mcp.HeaderSessionID))
}

// isResponse reports whether raw, a message the strict codec checked, is
// a JSON-RPC response: jsonrpc "2.0", an id, and exactly one of result and
// error, nothing else.
func isResponse(raw []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) != 3 || string(m["jsonrpc"]) != `"2.0"` {
		return false
	}
	id, hasID := m["id"]
	_, result := m["result"]
	_, failed := m["error"]
	return hasID && string(id) != "null" && result != failed
}
