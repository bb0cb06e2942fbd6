package mcpfront

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/gateway/proxy"
)

// call is one decoded JSON-RPC message on its way through the front.
type call struct {
	server    *server
	principal *authn.Principal
	req       jsonrpc.Request
	http      *http.Request
	// scope is the capability a tools/call was allowed under; its answer
	// is mapped back to the caller's handles. nil for every other call.
	scope *enforce.Scope
	// ids are the rewrites of the call's scope (or, redacted, of none)
	// over the server's catalog, built once for the decision and the
	// answer; nil when the answer is scoped to nothing.
	ids *enforce.IDMap
	// listed is the capability a tools/list presented, whose operations
	// bound the tools listed; nil lists every tool the config names.
	listed *enforce.Scope
	// grantable are the tools the policy could grant the caller, which
	// bound a tools/list that presents no capability; nil bounds nothing.
	grantable map[string]bool
	// tool is the tool a tools/call calls.
	tool string
	// uri is the real URI a resources/read reads.
	uri string
	// prompt is the prompt a prompts/get gets.
	prompt string
	// headersScoped says the answer keeps only the headers a caller
	// needs, as one under a capability does, though it is under none (a
	// prompt's, a session's stream, a client response's acknowledgement):
	// a server may name a real id in any other.
	headersScoped bool
	// stream is set when the answer is an event stream.
	stream bool
}

// outcome is what the front decided for one call: a response of its own,
// or a body to forward under the capability context it vouches for.
type outcome struct {
	resp    *jsonrpc.Response
	forward []byte
	vouched *proxy.Context
}

func fail(id json.RawMessage, e *jsonrpc.Error) outcome {
	resp := jsonrpc.NewError(id, e)
	return outcome{resp: &resp}
}

// forwardAs forwards the caller's own checked bytes, vouching for who the
// caller is.
func forwardAs(c *call) outcome {
	return outcome{forward: c.req.Raw, vouched: &proxy.Context{Principal: c.principal.ID, Holder: c.principal.ID}}
}

// serve is POST /mcp/{server}: read and decode the message, decide it,
// answer what was refused, forward what was allowed.
func (f *Front) serve(w http.ResponseWriter, r *http.Request) {
	s, p, ok := f.caller(w, r)
	if !ok || !f.checkSession(w, r, s, p.ID) {
		return
	}
	req, e, status := f.readMessage(w, r)
	c := &call{server: s, principal: p, req: req, http: r}
	if e != nil && req.Err != nil && sessionID(r) != "" && isResponse(req.Raw) {
		if e := f.notFrozen(r.Context(), c); e != nil {
			jsonrpc.WriteResponse(w, http.StatusForbidden, jsonrpc.NewError(nil, e))
			return
		}
		if e := cmp.Or(noRealID(c, req.Raw), noCapabilityInResponse(req.Raw)); e != nil {
			jsonrpc.WriteResponse(w, http.StatusBadRequest, jsonrpc.NewError(nil, e))
			return
		}
		f.forwardResponse(w, r, c)
		return
	}
	if e != nil {
		jsonrpc.WriteResponse(w, status, jsonrpc.NewError(req.ID, e))
		return
	}
	out := f.decide(r.Context(), c)
	if out.resp != nil {
		status := http.StatusOK
		if c.req.IsNotification() {
			// A notification gets no response; a refused one is an HTTP
			// error, as the transport asks.
			status = http.StatusBadRequest
		}
		jsonrpc.WriteResponse(w, status, *out.resp)
		return
	}
	timeout := f.cfg.UpstreamTimeout
	if req.Method == mcp.MethodToolsCall {
		timeout = f.cfg.StreamTimeout
		_ = http.NewResponseController(w).SetWriteDeadline(f.deps.Now().Add(timeout))
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	u := &outbound{c: c, body: out.forward, vouched: out.vouched}
	s.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
}

// caller is the server a request is addressed to and the principal
// authenticate found; without one it answers 401 and reports false.
func (f *Front) caller(w http.ResponseWriter, r *http.Request) (*server, *authn.Principal, bool) {
	s := f.servers[chi.URLParam(r, "server")] // authenticate found it
	p, ok := authn.PrincipalFrom(r.Context())
	if !ok {
		http.Error(w, "unauthenticated", http.StatusUnauthorized)
	}
	return s, p, ok
}

// readMessage reads and decodes one JSON-RPC message under the front's
// limits. A batch is refused: Streamable HTTP carries one message per
// POST since the 2025-06-18 revision.
func (f *Front) readMessage(w http.ResponseWriter, r *http.Request) (jsonrpc.Request, *jsonrpc.Error, int) {
	lim := f.cfg.Limits
	body, err := jsonrpc.ReadBodyLen(http.MaxBytesReader(w, r.Body, lim.MaxBodyBytes+1), r.ContentLength, lim)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, jsonrpc.ErrBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		return jsonrpc.Request{}, jsonrpc.ErrorFor(err), status
	}
	reqs, batch, err := f.decoder.Decode(body)
	switch {
	case err != nil:
		return jsonrpc.Request{}, jsonrpc.ErrorFor(err), http.StatusBadRequest
	case batch:
		return jsonrpc.Request{}, jsonrpc.NewCodeError(jsonrpc.CodeInvalidRequest, "one JSON-RPC message per request: batches are not served"), http.StatusBadRequest
	case reqs[0].Err != nil:
		// Among these, a client's answer to a server's request, which
		// serve forwards in the caller's own session (stream.go).
		return reqs[0], jsonrpc.ErrorFor(reqs[0].Err), http.StatusBadRequest
	}
	return reqs[0], nil, 0
}

// forwarded are the methods forwarded on authentication alone: the
// session's life, liveness, and the client's own notifications.
var forwarded = map[string]bool{
	mcp.MethodInitialize: true, mcp.MethodDiscover: true, mcp.MethodPing: true,
	mcp.NotificationInitialized: true, mcp.NotificationCancelled: true,
	mcp.NotificationProgress: true, mcp.NotificationRootsListChanged: true,
}

// decide routes one call by its method. A method the front does not know
// is refused, never forwarded: completion, resource templates and the
// rest are not scoped yet, and could carry what a tool call may not.
func (f *Front) decide(ctx context.Context, c *call) outcome {
	if capabilityMethods[c.req.Method] == nil {
		if e := f.notFrozen(ctx, c); e != nil {
			return fail(c.req.ID, e)
		}
	}
	switch m := c.req.Method; {
	case m == mcp.MethodToolsCall:
		return f.toolsCall(ctx, c)
	case m == mcp.MethodToolsList:
		return f.toolsList(ctx, c)
	case m == mcp.MethodResourcesRead || m == mcp.MethodResourcesList:
		return f.resources(ctx, c)
	case m == mcp.MethodPromptsList || m == mcp.MethodPromptsGet:
		return f.prompts(ctx, c)
	case capabilityMethods[m] != nil:
		return f.answerCapabilities(ctx, c, capabilityMethods[m])
	case forwarded[m]:
		if e := noCapabilityIn(c.req); e != nil {
			return fail(c.req.ID, e)
		}
		return forwardAs(c)
	}
	return fail(c.req.ID, notServed(c.req.Method))
}

// upstreamError answers a failed upstream hop with a JSON-RPC error for
// the call's own id.
func (f *Front) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	var id json.RawMessage
	if u, ok := outboundFrom(r.Context()); ok {
		id = u.c.req.ID
	}
	f.deps.Logger.WarnContext(r.Context(), "mcp upstream call failed", "path", r.URL.Path, "error", err)
	jsonrpc.WriteResponse(w, http.StatusBadGateway, jsonrpc.NewError(id, &jsonrpc.Error{
		Code: jsonrpc.CodeInternal, Message: "upstream MCP server unavailable",
		Data: map[string]string{"reason": "upstream_unavailable"},
	}))
}

// notFrozen refuses every message that would reach a frozen server, or
// that a frozen principal sends, capability or not: a freeze stops
// initialize, tools/list, prompts and the session's stream as it stops a
// tools/call. The capability-negotiation methods decide the freeze
// themselves.
func (f *Front) notFrozen(ctx context.Context, c *call) *jsonrpc.Error {
	return wireError(f.checks.NotFrozen(ctx, c.server.cfg.Name, c.principal.ID))
}
