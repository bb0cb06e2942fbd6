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

// Generation translation, both ways. An agent whose card serves A2A v0.3
// and not v1.0 is served to v1.0 callers by translation
// (agentcard.Translated), and one that serves v1.0 and not v0.3 is served
// to v0.3 callers (agentcard.TranslatedTo1): its served card lists an
// interface of the caller's generation at the gateway, the front decides
// the caller's call exactly as it would for an agent of the caller's
// generation, and only then is the allowed call rewritten to the agent's
// (decide); the agent's answers, unary or streamed, are rewritten back
// into the caller's shapes as the last answer processor
// (translateAnswer). Version checks ask about the call the agent will
// receive (upstreamCall). What cannot be translated is refused, never
// dropped (package a2agen).

// translation is how a call is translated for its agent: the method the
// agent receives, and whether it is the v1.0 method of a v0.3 call (else
// the v0.3 method of a v1.0 call).
type translation struct {
	method string
	to1    bool
}

// version is the A2A version the translated call speaks upstream.
func (t translation) version() string {
	if t.to1 {
		return a2agen.Version1
	}
	return a2agen.Version03
}

// upstreamCall returns the method and A2A-Version header the agent of
// card receives for c: the caller's own, or the translated method and
// its version when the gateway translates the call.
func upstreamCall(card map[string]any, c *call) (method, version string) {
	header := c.http.Header.Get("A2A-Version")
	if t, ok := translationFor(card, c.req.Method, header); ok {
		return t.method, t.version()
	}
	return c.req.Method, header
}

// translationFor returns the translation of a call of method under header
// for the agent of card: when the card does not support the version the
// call speaks, a2agen translates the method to the agent's generation,
// and the card supports the translated call. Any other call is forwarded
// as it was made.
func translationFor(card map[string]any, method, header string) (translation, bool) {
	if card == nil || agentcard.CheckMethod(card, method, header) == nil {
		return translation{}, false
	}
	spoken := agentcard.SpokenVersion(method, header)
	var t translation
	switch {
	case agentcard.Translated(card) && speaksV1(spoken):
		t.method, _ = a2agen.Translatable(method)
	case agentcard.TranslatedTo1(card) && speaksV03(spoken):
		t.method, _ = a2agen.TranslatableTo1(method)
		t.to1 = true
	}
	if t.method == "" || agentcard.CheckMethod(card, t.method, t.version()) != nil {
		return translation{}, false
	}
	return t, true
}

// speaksV03 reports whether an A2A version, as a call speaks it, is v0.3.
func speaksV03(version string) bool {
	return version == a2agen.Version03 || version == "0.3.0"
}

// translatable reports whether a2agen translates method in either
// direction.
func translatable(method string) bool {
	_, v1 := a2agen.Translatable(method)
	_, v03 := a2agen.TranslatableTo1(method)
	return v1 || v03
}

// translationOf returns the translation of c, when it is translated. The
// card is read only for a call a2agen can translate at all.
func (f *Front) translationOf(ctx context.Context, c *call) (translation, bool) {
	if c.req.Err != nil || !translatable(c.req.Method) {
		return translation{}, false
	}
	card := c.agent.card.Cached()
	if card == nil {
		_, card, _ = c.agent.card.Card(ctx)
	}
	return translationFor(card, c.req.Method, c.http.Header.Get("A2A-Version"))
}

// translateRequest rewrites a JSON-RPC request element the front built
// (or the caller's own bytes) into the call t; its other members
// (jsonrpc, id or its absence) stay as they are.
func translateRequest(forward []byte, t translation) ([]byte, *jsonrpc.Error) {
	var req map[string]json.RawMessage
	var method string
	if json.Unmarshal(forward, &req) != nil || json.Unmarshal(req["method"], &method) != nil {
		return nil, jsonrpc.NewCodeError(jsonrpc.CodeInternal, "")
	}
	translate, target := a2agen.Request, a2agen.Version03
	if t.to1 {
		translate, target = a2agen.RequestTo1, a2agen.Version1
	}
	_, params, err := translate(method, req["params"], extensionMembers()...)
	if err != nil {
		return nil, translationError(err, jsonrpc.CodeInvalidParams, "untranslatable_call",
			"the call cannot be translated to A2A "+target+", the only version the agent serves")
	}
	req["method"], req["params"] = encodeJSON(t.method), params
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
// rewrites the agent's answer (or one stream event) into the shape the
// caller's method answers with. It runs last, so the other processors see
// the agent's own answer.
func (f *Front) translateAnswer(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.translated == "" {
		return resp, nil
	}
	translate, caller := a2agen.Response, agentcard.TranslatedVersion
	if c.to1 {
		translate, caller = a2agen.ResponseTo03, a2agen.Version03
	}
	out, err := translate(c.translated, resp)
	if err != nil {
		f.deps.Logger.WarnContext(ctx, "upstream answer cannot be translated to the caller's A2A version; refused",
			"agent", c.agent.cfg.Name, "method", c.translated, "version", caller, "error", err)
		return nil, translationError(err, jsonrpc.CodeInternal, "untranslatable_answer",
			"the agent's answer cannot be expressed in A2A "+caller)
	}
	return out, nil
}

// translateHeaders sets, on the headers of a translated call, the headers
// the agent reads in its generation: its A2A-Version, and the extensions
// the caller activated under the other generation's header name as well
// (v0.3's X-A2A-Extensions, v1.0's A2A-Extensions).
func translateHeaders(h http.Header, to1 bool) {
	from, to := "A2A-Extensions", "X-A2A-Extensions"
	h.Set("A2A-Version", a2agen.Version03)
	if to1 {
		from, to = to, from
		h.Set("A2A-Version", a2agen.Version1)
	}
	if ext := h.Values(from); len(ext) > 0 && len(h.Values(to)) == 0 {
		h[http.CanonicalHeaderKey(to)] = ext
	}
}
