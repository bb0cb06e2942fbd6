package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// ErrResolve is wrapped when an agent cannot resolve a resource query.
var ErrResolve = errors.New("a2a front: resource resolution failed")

// ErrNoResolver is wrapped when the agent does not serve the resolution
// hook at all (it answers method not found): it has no resources the
// gateway can learn, unless the config gives a catalog or a whole-agent
// grant.
var ErrNoResolver = errors.New("a2a front: the agent serves no a2a/resources/resolve")

// maxResolveResponse bounds an agent's answer to a resolution.
const maxResolveResponse = 1 << 20

// resolve turns a resource query into the agent's resources. The agent
// owns its resources, so a capability-aware agent is asked through the
// a2a/resources/resolve hook, sent through the agent's proxy like every
// other call; a legacy agent, or one with a catalog in the config, is
// answered from the catalog. Policy is applied by the caller, on top of
// what exists.
func (f *Front) resolve(ctx context.Context, c *call, q *policy.ResourceQuery) ([]policy.Resource, error) {
	if q == nil {
		q = &policy.ResourceQuery{}
	}
	a := c.agent
	if a.cfg.Legacy || len(a.cfg.Catalog) > 0 {
		return catalogResources(a, q), nil
	}
	body := encodeRequest(json.RawMessage("1"), sep.MethodResolve, map[string]any{
		"principal": c.principal.ID, "collection": q.Collection, "filter": q.Filter,
	})
	buf := newBufferedAnswer(maxResolveResponse)
	u := &outbound{id: json.RawMessage("1"), vouched: callerContext(c), body: body}
	if f.carry(ctx, buf, c.http, u, a) {
		return nil, fmt.Errorf("%w: the agent could not be reached", ErrResolve)
	}
	if buf.overflow {
		return nil, fmt.Errorf("%w: answer larger than %d bytes", ErrResolve, maxResolveResponse)
	}
	return decodeResolve(buf.status, buf.body.Bytes())
}

func decodeResolve(status int, b []byte) ([]policy.Resource, error) {
	var env struct {
		Result *struct {
			Resources []sep.Resource `json:"resources"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("%w: status %d: %w", ErrResolve, status, err)
	}
	if env.Error != nil && env.Error.Code == jsonrpc.CodeMethodNotFound {
		return nil, fmt.Errorf("%w: %w", ErrResolve, ErrNoResolver)
	}
	if env.Error != nil || env.Result == nil {
		return nil, fmt.Errorf("%w: agent refused the query: %s", ErrResolve, b)
	}
	return domainResources(env.Result.Resources), nil
}

// domainResources turns the resources of a resolution answer (the SEP's
// wire form) into the gateway's.
func domainResources(wire []sep.Resource) []policy.Resource {
	out := make([]policy.Resource, 0, len(wire))
	for _, r := range wire {
		out = append(out, policy.Resource{ID: r.ID, DisplayName: r.DisplayName, Collection: r.Collection, Attributes: r.Attributes})
	}
	return out
}

// catalogResources resolves a query against the agent's catalog, through
// its index: only the resources of the query's collection, or holding an
// attribute value it pins, whichever are fewer, are read.
func catalogResources(a *agent, q *policy.ResourceQuery) []policy.Resource {
	return a.catalog.Query(q)
}
