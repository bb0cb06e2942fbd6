package mcpfront

import (
	"cmp"
	"context"
	"net/http"
	"strings"

	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/gateway/proxy"
)

// outbound is one request the front sends a server, as the proxy and the
// answer hook see it (proxy.Outbound). The proxy strips the caller's
// credentials and capability headers from its copy of the request first;
// Prepare then sets the body the front decided and the MCP headers that
// mirror it.
type outbound struct {
	c       *call
	body    []byte
	vouched *proxy.Context
	// method, when set, is the request's method without a body: GET opens
	// a session's standalone stream, DELETE ends the session. Empty is a
	// JSON-RPC POST of body.
	method string
}

var _ proxy.Outbound = (*outbound)(nil)

// Vouched implements proxy.Outbound.
func (u *outbound) Vouched() (proxy.Context, bool) {
	if u.vouched == nil {
		return proxy.Context{}, false
	}
	return *u.vouched, true
}

// Prepare implements proxy.Outbound: the decided body as a JSON POST,
// without the caller's encodings (the answer pipeline reads the answer),
// and the MCP headers that mirror the body set from what was decided.
func (u *outbound) Prepare(out *http.Request) {
	if u.method != "" {
		stripMirrorHeaders(out.Header)
		out.Method, out.Body, out.ContentLength = u.method, http.NoBody, 0
		out.Header.Del("Content-Type")
		out.Header.Del("Accept-Encoding")
		if u.method == http.MethodGet {
			out.Header.Set("Accept", "text/event-stream")
		}
		return
	}
	proxy.SetJSONCall(out, u.body)
	mirrorHeaders(out.Header, u.c)
}

// stripMirrorHeaders deletes the caller's Mcp-Method, Mcp-Name and
// Mcp-Param-* headers, in any spelling an upstream stack might fold to
// them, and reports whether it sent an Mcp-Method: none of them reaches a
// server as the caller wrote it, for a server may act on them (a GET or a
// DELETE has no body they could be checked against).
func stripMirrorHeaders(h http.Header) (sent bool) {
	for k := range h {
		n := strings.ReplaceAll(strings.ToLower(k), "_", "-")
		if n == "mcp-method" || n == "mcp-name" || strings.HasPrefix(n, "mcp-param-") {
			sent = sent || n == "mcp-method"
			delete(h, k)
		}
	}
	return sent
}

// mirrorHeaders replaces the caller's Mcp-Method, Mcp-Name and
// Mcp-Param-* headers (2026-07-28), in any spelling an upstream stack
// might fold to them, by the gateway's own: the method and the name as
// decided (the tool's, the resource's real URI, the prompt's), and no
// argument headers at all, since an argument the
// gateway rewrote would no longer match its header. A caller that sent no
// Mcp-Method speaks an older revision and gets none.
func mirrorHeaders(h http.Header, c *call) {
	if sent := stripMirrorHeaders(h); !sent || c.req.Method == "" {
		return
	}
	h.Set(mcp.HeaderMethod, c.req.Method)
	if name := cmp.Or(c.tool, c.uri, c.prompt); name != "" {
		h.Set(mcp.HeaderName, name)
	}
}

// outboundFrom is the outbound a request or answer context carries.
func outboundFrom(ctx context.Context) (*outbound, bool) {
	o, ok := proxy.OutboundFrom(ctx)
	if !ok {
		return nil, false
	}
	u, ok := o.(*outbound)
	return u, ok
}
