package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/capgate/capgate/policy"
)

// ErrResolve is wrapped when an agent cannot resolve a resource query.
var ErrResolve = errors.New("gateway: resource resolution failed")

// maxResolveResponse bounds an agent's answer to a resolution.
const maxResolveResponse = 1 << 20

// resolvedResource is one resource an agent says matches a query.
type resolvedResource struct {
	ID          string            `json:"id"`
	Collection  string            `json:"collection"`
	DisplayName string            `json:"displayName"`
	Attributes  map[string]string `json:"attributes"`
}

func (r resolvedResource) policyResource() policy.Resource {
	return policy.Resource{Collection: r.Collection, ID: r.ID, Attributes: r.Attributes}
}

// resolve turns a resource query into the agent's resources. The agent
// owns its resources, so a capability-aware agent is asked through the
// a2a/resources/resolve hook; a legacy agent falls back to the catalog in
// the config. Policy is applied by the caller, on top of what exists.
func (g *Gateway) resolve(ctx context.Context, a *agent, principal string, q *resourceQuery) ([]resolvedResource, error) {
	if q == nil {
		q = &resourceQuery{}
	}
	if a.cfg.Legacy || len(a.cfg.Catalog) > 0 {
		return catalogResources(a, q), nil
	}
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "a2a/resources/resolve",
		"params": map[string]any{"principal": principal, "collection": q.Collection, "filter": q.Filter},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrResolve, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrResolve, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrResolve, err)
	}
	defer resp.Body.Close()
	return decodeResolve(resp)
}

func decodeResolve(resp *http.Response) ([]resolvedResource, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResolveResponse+1))
	if err != nil || len(b) > maxResolveResponse {
		return nil, fmt.Errorf("%w: unreadable or oversized answer", ErrResolve)
	}
	var env struct {
		Result *struct {
			Resources []resolvedResource `json:"resources"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("%w: status %d: %w", ErrResolve, resp.StatusCode, err)
	}
	if env.Error != nil || env.Result == nil {
		return nil, fmt.Errorf("%w: agent refused the query: %s", ErrResolve, b)
	}
	return env.Result.Resources, nil
}

// catalogResources resolves a query against a legacy agent's catalog.
func catalogResources(a *agent, q *resourceQuery) []resolvedResource {
	var out []resolvedResource
	for _, r := range a.cfg.Catalog {
		if q.Collection != "" && r.Collection != q.Collection {
			continue
		}
		match := true
		for k, v := range q.Filter {
			match = match && r.Attributes[k] == v
		}
		if match {
			out = append(out, resolvedResource{ID: r.ID, Collection: r.Collection, DisplayName: r.DisplayName, Attributes: r.Attributes})
		}
	}
	return out
}
