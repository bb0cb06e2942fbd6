package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// serveBatch decides every element on its own, then forwards each allowed
// element as its own upstream call, so that every call carries exactly the
// capability context that authorised it. Streaming methods cannot be
// batched. Answers come back in request order; notifications get none.
func (f *Front) serveBatch(w http.ResponseWriter, r *http.Request, a *agent, p *authn.Principal, reqs []jsonrpc.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), f.cfg.UpstreamTimeout)
	defer cancel()
	results := make([]json.RawMessage, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		c := &call{agent: a, principal: p, req: req, http: r}
		start := f.deps.Now()
		out := f.decideBatched(ctx, c)
		f.observeDecision(c, out, start)
		if out.resp != nil {
			results[i] = marshalResponse(c.shaped(*out.resp))
			continue
		}
		wg.Go(func() { results[i] = f.forwardRecovered(ctx, c, out) })
	}
	wg.Wait()
	var answers []json.RawMessage
	for i, res := range results {
		if !reqs[i].IsNotification() && res != nil {
			answers = append(answers, res)
		}
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(answers)
}

func (f *Front) decideBatched(ctx context.Context, c *call) outcome {
	if c.req.Err == nil && jsonrpc.IsStreaming(c.req.Method) {
		return fail(c.req.ID, &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest, Message: "streaming methods cannot be batched",
			Data: map[string]string{"reason": "streaming_in_batch"},
		})
	}
	return f.decide(ctx, c)
}

// forwardRecovered is forwardElement in a batch's own goroutine, where a
// panic would end the process rather than the one request, as net/http
// makes it for a handler: it answers the element with an internal error
// and logs the panic.
func (f *Front) forwardRecovered(ctx context.Context, c *call, out outcome) (answer json.RawMessage) {
	defer func() {
		if v := recover(); v != nil {
			f.deps.Logger.ErrorContext(ctx, "panic forwarding a batch element", "agent", c.agent.cfg.Name,
				"method", c.req.Method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			answer = marshalResponse(c.shaped(jsonrpc.NewError(c.req.ID, jsonrpc.NewCodeError(jsonrpc.CodeInternal, ""))))
		}
	}()
	return f.forwardElement(ctx, c, out)
}

// forwardElement sends one allowed batch element through the agent's
// proxy and returns its answer, or a JSON-RPC error when the hop failed or
// answered something that cannot be merged into the batch.
func (f *Front) forwardElement(ctx context.Context, c *call, out outcome) json.RawMessage {
	start := f.deps.Now()
	// The element's answer, as the pipeline let it through, is held to
	// the agent's answer limit: the batch must buffer it to merge it.
	buf := newBufferedAnswer(c.agent.maxAnswer)
	failed := f.carry(ctx, buf, c.http, allowedCall(c, out), c.agent)
	body := buf.body.Bytes()
	var bad error
	switch {
	case failed:
	case buf.overflow:
		f.deps.Logger.WarnContext(ctx, "upstream answer refused: larger than the limit", "agent", c.agent.cfg.Name, "limit", c.agent.maxAnswer)
		f.observeForwarded(c, start, false)
		return marshalResponse(c.shaped(jsonrpc.NewError(c.req.ID, answer.AnswerTooLarge(c.agent.maxAnswer))))
	case len(bytes.TrimSpace(body)) == 0:
		body = nil
	case !json.Valid(body):
		bad = fmt.Errorf("upstream answered status %d with invalid JSON", buf.status)
	}
	if bad != nil {
		f.deps.Logger.WarnContext(ctx, "upstream call failed", "agent", c.agent.cfg.Name, "error", bad)
		failed, body = true, marshalResponse(c.shaped(answer.UpstreamUnavailable(c.req.ID)))
	}
	f.observeForwarded(c, start, failed)
	return body
}

// marshalResponse encodes a response the gateway built itself, which
// always encodes.
func marshalResponse(resp jsonrpc.Response) json.RawMessage {
	b, err := json.Marshal(resp)
	if err != nil {
		panic(fmt.Sprintf("a2a front: a response the gateway built does not encode: %v", err))
	}
	return b
}
