package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// call is one decoded JSON-RPC request on its way through the front.
type call struct {
	agent     *agent
	principal *authn.Principal
	req       jsonrpc.Request
	canonical string
	http      *http.Request
	// scope is the capability the call was allowed under, once a check
	// has scoped it (an invocation, or a gated agent's message); its
	// answer is then mapped back to the caller's handles.
	scope *enforce.Scope
	// translated is the caller's method when the call is forwarded
	// translated to the agent's generation (translate.go), else "".
	translated string
	// to1 is set when the translated call is a v0.3 call forwarded as
	// v1.0 (else a v1.0 call forwarded as v0.3).
	to1 bool
}

// outcome is what the front decided for one call: either a response
// answered by the gateway itself, or a request element to forward with the
// capability context the gateway vouches for.
type outcome struct {
	resp    *jsonrpc.Response
	forward []byte
	cc      *proxy.Context
}

func answered(resp jsonrpc.Response) outcome { return outcome{resp: &resp} }

func fail(id json.RawMessage, e *jsonrpc.Error) outcome {
	return answered(jsonrpc.NewError(id, e))
}

// forwardAs forwards the call's own bytes on the caller's authority.
func forwardAs(c *call) outcome {
	return outcome{forward: c.req.Raw, cc: callerContext(c)}
}

// serveA2A is POST /a2a/{agent}: read and decode the body once, decide
// every call, answer locally what was refused, forward what was allowed.
func (f *Front) serveA2A(w http.ResponseWriter, r *http.Request) {
	a, ok := f.agents[chi.URLParam(r, "agent")]
	if !ok {
		jsonrpc.WriteResponse(w, http.StatusNotFound, callerShape("", r.Header, jsonrpc.NewError(nil, &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest, Message: "unknown agent",
			Data: map[string]string{"reason": "unknown_agent"},
		})))
		return
	}
	p, ok := authn.PrincipalFrom(r.Context())
	if !ok {
		// The middleware guarantees a principal; refuse rather than guess.
		http.Error(w, "unauthenticated", http.StatusUnauthorized)
		return
	}
	lim := f.cfg.Limits
	body, err := jsonrpc.ReadBodyLen(http.MaxBytesReader(w, r.Body, lim.MaxBodyBytes+1), r.ContentLength, lim)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, jsonrpc.ErrBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		jsonrpc.WriteResponse(w, status, callerShape("", r.Header, jsonrpc.NewError(nil, jsonrpc.ErrorFor(err))))
		return
	}
	reqs, batch, err := f.decoder.Decode(body)
	if err != nil {
		jsonrpc.WriteResponse(w, http.StatusBadRequest, callerShape("", r.Header, jsonrpc.NewError(nil, jsonrpc.ErrorFor(err))))
		return
	}
	if !batch {
		f.serveOne(w, r, &call{agent: a, principal: p, req: reqs[0], http: r})
		return
	}
	f.serveBatch(w, r, a, p, reqs)
}

// serveOne decides one call and either answers it or proxies it, streaming
// the upstream's answer through.
func (f *Front) serveOne(w http.ResponseWriter, r *http.Request, c *call) {
	start := f.deps.Now()
	dctx, span := f.decideSpan(r.Context(), c.req.Method)
	out := f.decide(dctx, c)
	var refusal *jsonrpc.Error
	if out.resp != nil {
		refusal = out.resp.Error
	}
	endWith(span, refusal)
	f.observeDecision(c, out, start)
	if out.resp != nil {
		if c.req.IsNotification() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeAnswered(w, c, *out.resp)
		return
	}
	ctx := r.Context()
	if jsonrpc.IsStreaming(c.req.Method) {
		extendWriteDeadline(w, f.deps.Now().Add(f.cfg.StreamTimeout))
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.cfg.UpstreamTimeout)
		defer cancel()
	}
	f.forward(ctx, w, c, out)
}

// callerContext is the context vouched for on a call forwarded on the
// caller's own authority: who the caller is, so the agent can keep each
// principal's tasks apart, and, on a call scoped to a capability, that
// capability.
func callerContext(c *call) *proxy.Context {
	if s := c.scope; s != nil {
		return &proxy.Context{CapabilityID: s.Claims.CapabilityID, Principal: s.Claims.Principal,
			Holder: s.Claims.Holder, Operations: s.Claims.Operations}
	}
	return &proxy.Context{Principal: c.principal.ID, Holder: c.principal.ID}
}

// extendWriteDeadline lets a stream outlive the listener's write timeout,
// bounded by the stream timeout instead.
func extendWriteDeadline(w http.ResponseWriter, t time.Time) {
	_ = http.NewResponseController(w).SetWriteDeadline(t)
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
