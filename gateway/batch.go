package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// maxUpstreamResponse bounds one upstream answer inside a batch, which the
// gateway must buffer to merge.
const maxUpstreamResponse = 4 << 20

// serveBatch decides every element on its own, then forwards each allowed
// element as its own upstream call, so that every call carries exactly the
// capability context that authorised it. Streaming methods cannot be
// batched. Answers come back in request order; notifications get none.
func (g *Gateway) serveBatch(w http.ResponseWriter, r *http.Request, a *agent, p *authn.Principal, reqs []jsonrpc.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), g.cfg.Limits.UpstreamTimeout.D())
	defer cancel()
	results := make([]json.RawMessage, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		c := &call{agent: a, principal: p, req: req, http: r}
		start := g.now()
		out := g.decideBatched(ctx, c)
		g.observeDecision(c, out, start)
		if out.resp != nil {
			results[i] = mustMarshal(*out.resp)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = g.forwardOne(ctx, c, out)
		}()
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

func (g *Gateway) decideBatched(ctx context.Context, c *call) outcome {
	if c.req.Err == nil && jsonrpc.IsStreaming(c.req.Method) {
		return fail(c.req.ID, &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest, Message: "streaming methods cannot be batched",
			Data: map[string]string{"reason": "streaming_in_batch"},
		})
	}
	return g.decide(ctx, c)
}

// forwardOne sends one allowed batch element upstream and returns the
// upstream's answer, or a JSON-RPC error when the hop fails.
func (g *Gateway) forwardOne(ctx context.Context, c *call, out outcome) json.RawMessage {
	start := g.now()
	res, failed := g.forwardElement(ctx, c.agent, c.req.ID, out)
	g.metrics.ObserveUpstream(c.agent.cfg.Name, g.now().Sub(start))
	outcome := "ok"
	if failed {
		outcome = "upstream_error"
	}
	g.metrics.ObserveRequest(c.agent.cfg.Name, c.canonical, outcome)
	return res
}

func (g *Gateway) forwardElement(ctx context.Context, a *agent, id json.RawMessage, out outcome) (json.RawMessage, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url.String(), bytes.NewReader(out.forward))
	if err != nil {
		return g.upstreamFailure(ctx, id, err)
	}
	req.Header.Set("Content-Type", "application/json")
	injectTrace(ctx, req.Header)
	if out.cc != nil {
		proxy.SetContextHeaders(req.Header, *out.cc)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return g.upstreamFailure(ctx, id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamResponse+1))
	switch {
	case err != nil:
		return g.upstreamFailure(ctx, id, err)
	case len(body) > maxUpstreamResponse:
		return g.upstreamFailure(ctx, id, fmt.Errorf("response larger than %d bytes", maxUpstreamResponse))
	case len(bytes.TrimSpace(body)) == 0:
		return nil, false
	case !json.Valid(body):
		return g.upstreamFailure(ctx, id, fmt.Errorf("upstream answered status %d with invalid JSON", resp.StatusCode))
	}
	return body, false
}

// upstreamFailure answers a failed hop with a JSON-RPC error, and reports
// the failure.
func (g *Gateway) upstreamFailure(ctx context.Context, id json.RawMessage, err error) (json.RawMessage, bool) {
	g.logger.WarnContext(ctx, "upstream call failed", "error", err)
	return mustMarshal(jsonrpc.NewError(id, &jsonrpc.Error{
		Code: jsonrpc.CodeInternal, Message: "upstream agent unavailable",
		Data: map[string]string{"reason": "upstream_unavailable"},
	})), true
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("gateway: marshal of a response failed: %v", err))
	}
	return b
}
