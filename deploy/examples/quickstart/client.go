package quickstart

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// rpcClient makes the raw HTTP calls of the walkthrough, so that each step
// shows exactly what a caller sends and gets.
type rpcClient struct {
	base string
	http *http.Client
}

// rpcResult is one HTTP exchange with the gateway.
type rpcResult struct {
	Status int
	Header http.Header
	Body   []byte
	// Result and Error are the decoded JSON-RPC answer, when it is one.
	Result json.RawMessage
	Error  *rpcError
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Reason returns capgate's stable machine-readable word: error.data.reason
// as a v0.3 caller gets it, or, in the list of typed details a v1.0 caller
// gets, the reason in the ErrorInfo's metadata.
func (e *rpcError) Reason() string {
	var d struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal(e.Data, &d) == nil {
		return d.Reason
	}
	var details []struct {
		Metadata map[string]string `json:"metadata"`
	}
	_ = json.Unmarshal(e.Data, &details)
	for _, info := range details {
		if r := info.Metadata["reason"]; r != "" {
			return r
		}
	}
	return ""
}

// call posts a JSON-RPC request to /a2a/{agent} with an optional bearer.
func (c *rpcClient) call(ctx context.Context, agent, bearer, method string, params any) (*rpcResult, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	return c.post(ctx, "/a2a/"+agent, bearer, body)
}

func (c *rpcClient) post(ctx context.Context, path, bearer string, body []byte) (*rpcResult, error) {
	return c.postWith(ctx, path, bearer, body, "")
}

// postWith is post with an Accept header, when accept is not empty.
func (c *rpcClient) postWith(ctx context.Context, path, bearer string, body []byte, accept string) (*rpcResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return c.do(req)
}

func (c *rpcClient) get(ctx context.Context, path string) (*rpcResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	return c.do(req)
}

func (c *rpcClient) do(req *http.Request) (*rpcResult, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	res := &rpcResult{Status: resp.StatusCode, Header: resp.Header, Body: b}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	// A refusal of a streaming call is a stream of one event: its answer.
	if event, ok := bytes.CutPrefix(b, []byte("data: ")); ok {
		b = event
	}
	if json.Unmarshal(b, &env) == nil {
		res.Result, res.Error = env.Result, env.Error
	}
	return res, nil
}

// expectResult fails unless the exchange was a JSON-RPC success.
func (r *rpcResult) expectResult() error {
	if r.Status != http.StatusOK || r.Error != nil || r.Result == nil {
		return fmt.Errorf("want a result, got HTTP %d: %s", r.Status, r.Body)
	}
	return nil
}

// expectError fails unless the exchange was JSON-RPC error code with reason
// (reason may be empty).
func (r *rpcResult) expectError(code int, reason string) error {
	if r.Error == nil || r.Error.Code != code || (reason != "" && r.Error.Reason() != reason) {
		return fmt.Errorf("want error %d %s, got HTTP %d: %s", code, reason, r.Status, r.Body)
	}
	return nil
}
