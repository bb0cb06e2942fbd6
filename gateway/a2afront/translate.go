package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/capgate/capgate/gateway/a2agen"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Generation translation. An agent whose card serves A2A v0.3 and not
// v1.0 is served to v1.0 callers by translation (agentcard.Translated):
// its served card lists a v1.0 JSON-RPC interface at the gateway, the
// front decides the caller's v1.0 call exactly as it would for a v1.0
// agent, and only then is the allowed call rewritten to v0.3 (decide);
// the agent's answers, unary or streamed, are rewritten back into v1.0
// shapes as the last answer processor (translateAnswer). Version checks
// ask about the call the agent will receive (upstreamCall). What cannot
// be translated is refused, never dropped (package a2agen).

// upstreamCall returns the method and A2A-Version header the agent of
// card receives for c: the caller's own, or the v0.3 method and version
// when the gateway translates the call.
func upstreamCall(card map[string]any, c *call) (method, version string) {
	header := c.http.Header.Get("A2A-Version")
	if v03, ok := translation(card, c.req.Method, header); ok {
		return v03, a2agen.Version03
	}
	return c.req.Method, header
}

// translation returns the v0.3 method a call of method under header is
// translated to for the agent of card: when the call speaks v1.0, the card
// does not support that but supports the v0.3 method, and a2agen
// translates the method. Any other call is forwarded as it was made.
func translation(card map[string]any, method, header string) (string, bool) {
	if card == nil || !agentcard.Translated(card) {
		return "", false
	}
	if !speaksV1(agentcard.SpokenVersion(method, header)) {
		return "", false
	}
	v03, ok := a2agen.Translatable(method)
	if !ok || agentcard.CheckMethod(card, method, header) == nil || agentcard.CheckMethod(card, v03, a2agen.Version03) != nil {
		return "", false
	}
	return v03, true
}

// translationOf returns the v0.3 method c is translated to, when it is.
// The card is read only for a call a2agen can translate at all.
func (f *Front) translationOf(ctx context.Context, c *call) (string, bool) {
	if c.req.Err != nil {
		return "", false
	}
	if _, ok := a2agen.Translatable(c.req.Method); !ok {
		return "", false
	}
	card := c.agent.card.Cached()
	if card == nil {
		_, card, _ = c.agent.card.Card(ctx)
	}
	return translation(card, c.req.Method, c.http.Header.Get("A2A-Version"))
}

// translateRequest rewrites a JSON-RPC request element the front built
// (or the caller's own bytes) into the v0.3 call of method v03; its other
// members (jsonrpc, id or its absence) stay as they are.
func translateRequest(forward []byte, v03 string) ([]byte, *jsonrpc.Error) {
	var req map[string]json.RawMessage
	var v1 string
	if json.Unmarshal(forward, &req) != nil || json.Unmarshal(req["method"], &v1) != nil {
		return nil, jsonrpc.NewCodeError(jsonrpc.CodeInternal, "")
	}
	_, params, err := a2agen.Request(v1, req["params"], extensionMembers()...)
	if err != nil {
		return nil, translationError(err, jsonrpc.CodeInvalidParams, "untranslatable_call",
			"the call cannot be translated to A2A "+a2agen.Version03+", the only version the agent serves")
	}
	req["method"], req["params"] = encodeJSON(v03), params
	b, err := json.Marshal(req)
	if err != nil {
		return nil, jsonrpc.NewCodeError(jsonrpc.CodeInternal, "")
	}
	return b, nil
}

// translationError is the refusal of what a2agen could not translate,
// naming the member at fault.
func translationError(err error, code int, reason, msg string) *jsonrpc.Error {
	data := map[string]any{"reason": reason, "detail": err.Error()}
	var ae *a2agen.Error
	if errors.As(err, &ae) {
		data["member"] = ae.Path
	}
	return &jsonrpc.Error{Code: code, Message: msg, Data: data}
}

// translateAnswer is the answer processor of translated calls: it
// rewrites the agent's v0.3 answer (or one stream event) into the v1.0
// shape the caller's method answers with. It runs last, so the other
// processors see the agent's own answer.
func (f *Front) translateAnswer(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.translated == "" {
		return resp, nil
	}
	out, err := a2agen.Response(c.translated, resp)
	if err != nil {
		f.deps.Logger.WarnContext(ctx, "upstream answer cannot be translated to A2A v1.0; refused",
			"agent", c.agent.cfg.Name, "method", c.translated, "error", err)
		return nil, translationError(err, jsonrpc.CodeInternal, "untranslatable_answer",
			"the agent's answer cannot be expressed in A2A "+agentcard.TranslatedVersion)
	}
	return out, nil
}

// translateHeaders sets, on the headers of a translated call, the
// headers the agent reads in v0.3: A2A-Version 0.3, and the extensions
// the caller activated under v0.3's X-A2A-Extensions as well.
func translateHeaders(h http.Header) {
	h.Set("A2A-Version", a2agen.Version03)
	if ext := h.Values("A2A-Extensions"); len(ext) > 0 && len(h.Values("X-A2A-Extensions")) == 0 {
		h["X-A2A-Extensions"] = ext
	}
}
