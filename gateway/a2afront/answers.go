package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// The answers of the calls the front forwarded come back through the same
// proxy, whose ModifyResponse hook runs them through the front's answer
// processors before the caller sees anything: a unary answer as a whole,
// a stream event by event, as each event arrives.

// answerProcessor sees one JSON-RPC response object the upstream sent for
// c (a unary answer, or the data of one stream event) and returns it,
// changed or not. An error refuses that response: a *jsonrpc.Error is sent
// in its place, with the response's id; any other error is sent as an
// internal error. A refused stream ends after the refusal.
//
// resp is always valid JSON: the chain is only given what the answer
// check accepted (answercheck.go), and it checks whatever a processor
// returns changed before the next one sees it. A processor never changes
// resp in place.
type answerProcessor func(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error)

// errNotJSONRPC refuses an answer that is not JSON: no processor could
// have seen what it carries.
var errNotJSONRPC = errors.New("a2a front: upstream answer is not JSON")

// modifyAnswer is the agents' proxy hook. Answers of requests that name
// no call (the resolution hook) are left as they are.
func (f *Front) modifyAnswer(resp *http.Response) error {
	ctx := resp.Request.Context()
	u, ok := upstreamFrom(ctx)
	if ok && u.c != nil && u.c.scope != nil {
		proxy.ScopeAnswer(resp) // only allowlisted answer headers, no trailers
	}
	if !ok || u.c == nil || len(f.answers) == 0 {
		return nil
	}
	c := u.c
	if isEventStream(resp.Header.Get("Content-Type")) {
		es := newEventStream(ctx, f.processChain(c), f.strictCheck(c), c.req.ID, resp.Body)
		if c.scope != nil {
			es.line = scopedLine(c.scope.IDMap(c.agent.known))
		}
		resp.Body = es
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return nil
	}
	body, err := readAnswer(resp.Body, resp.ContentLength, maxUpstreamResponse)
	_ = resp.Body.Close()
	switch {
	case err != nil:
		return fmt.Errorf("a2a front: reading the upstream answer: %w", err)
	case len(body) > maxUpstreamResponse:
		return fmt.Errorf("%w: more than %d bytes", errAnswerTooLarge, maxUpstreamResponse)
	}
	if body, err = processUnary(ctx, f.processChain(c), f.strictCheck(c), c.req.ID, body); err != nil {
		return err
	}
	setAnswer(resp, body)
	return nil
}

// chain applies processors to one response object, in order. resp must
// have passed the answer check.
type chain func(ctx context.Context, resp json.RawMessage) (json.RawMessage, error)

// processChain is the front's processors bound to c. What a processor
// changed passes the same check as what the agent sent before the next
// processor, or the caller, sees it: id mapping rewrites member names, and
// two names it maps to one placeholder would be a duplicate the caller's
// reader resolves its own way.
func (f *Front) processChain(c *call) chain {
	return func(ctx context.Context, resp json.RawMessage) (json.RawMessage, error) {
		for _, p := range f.answers {
			out, err := p(ctx, c, resp)
			if err != nil {
				return nil, err
			}
			if !sameText(out, resp) {
				if err := checkAnswer(out, f.answerStrict); err != nil {
					f.refusedOutput(ctx, c, err)
					return nil, err
				}
			}
			resp = out
		}
		return resp, nil
	}
}

// refusedOutput logs an answer refused after a processor changed it: id
// mapping can turn two member names of the agent's into one placeholder.
func (f *Front) refusedOutput(ctx context.Context, c *call, err error) {
	agent := ""
	if c.agent != nil {
		agent = c.agent.cfg.Name
	}
	f.deps.Logger.WarnContext(ctx, "upstream answer refused after the gateway's processing (two names mapped to one?)",
		"agent", agent, "error", err)
}

// sameText reports whether a and b are the very same bytes in memory.
func sameText(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// processUnary runs a unary answer through the chain: one response object,
// or each of an array's, each checked first. An empty answer (to a
// notification) has nothing to process; anything that is not JSON is
// refused. A response the check refuses is replaced by its refusal for
// id, the call's own: the id it carries is part of what was refused.
func processUnary(ctx context.Context, run chain, check answerCheck, id json.RawMessage, body []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return body, nil
	case trimmed[0] == '[':
		return processArray(ctx, run, check, id, trimmed)
	}
	// The check is the only validation: one pass over the answer.
	if err := check(ctx, trimmed); err != nil {
		return refuseAnswer(id, err)
	}
	out, _ := processOne(ctx, run, id, trimmed)
	return out, nil
}

// processArray is processUnary on an array answer: each element is
// checked and processed on its own.
func processArray(ctx context.Context, run chain, check answerCheck, id json.RawMessage, arr []byte) ([]byte, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(arr, &elems); err != nil {
		return nil, errNotJSONRPC
	}
	for i, e := range elems {
		if err := check(ctx, e); err != nil {
			if elems[i], err = refuseAnswer(id, err); err != nil {
				return nil, err
			}
			continue
		}
		elems[i], _ = processOne(ctx, run, id, e)
	}
	return json.Marshal(elems)
}

// processOne runs one response object through the chain and returns what
// the caller gets: the processed object, or the refusal in its place
// (refused is then true), for the response's id or, when it has none, id.
func processOne(ctx context.Context, run chain, id, resp json.RawMessage) (out json.RawMessage, refused bool) {
	out, err := run(ctx, resp)
	if err == nil && bytes.Equal(out, resp) && !hasLooseSpace(out) {
		// resp is valid JSON (every caller checked it) and already compact.
		return out, false
	}
	if err == nil {
		var buf bytes.Buffer
		if json.Compact(&buf, out) == nil {
			return buf.Bytes(), false
		}
		err = errNotJSONRPC
	}
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		e = jsonrpc.NewCodeError(jsonrpc.CodeInternal, "")
	}
	if rid := responseID(resp); rid != nil {
		id = rid
	}
	return marshalResponse(jsonrpc.NewError(id, e)), true
}

// responseID is the id of a response object, or nil when it has none.
func responseID(resp json.RawMessage) json.RawMessage {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(resp, &env) != nil {
		return nil
	}
	return env.ID
}
