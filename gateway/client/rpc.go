package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// userAgent identifies the client to the gateway's logs.
const userAgent = "capgate-client/1"

// wireCall is one JSON-RPC 2.0 request.
type wireCall struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// call sends one JSON-RPC request and returns its raw result. A JSON-RPC
// error comes back as *RPCError; everything else that goes wrong wraps one
// of the package's sentinels.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	body, err := json.Marshal(wireCall{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("%w: params of %s: %w", ErrInvalidArgument, method, err)
	}
	status, raw, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	return decodeResponse(status, raw, id)
}

// post sends body to the endpoint and returns the status and at most
// MaxResponseBytes of the answer.
func (c *Client) post(ctx context.Context, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if c.opts.Credential != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Credential)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return 0, nil, transportError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxResponseBytes+1))
	if err != nil {
		return 0, nil, transportError(err)
	}
	if int64(len(raw)) > c.opts.MaxResponseBytes {
		return 0, nil, fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, c.opts.MaxResponseBytes)
	}
	return resp.StatusCode, raw, nil
}

// wireResponse is one JSON-RPC 2.0 response.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *wireError      `json:"error"`
}

// decodeResponse turns an HTTP answer into the result of request id. A
// JSON-RPC error object is an *RPCError whatever the HTTP status (the
// gateway answers 413 with one); 401 is ErrUnauthenticated; any other
// non-2xx answer is a *StatusError (ErrHTTPStatus); a 2xx answer that is not the response
// to id is ErrMalformedResponse.
func decodeResponse(status int, raw []byte, id int64) (json.RawMessage, error) {
	if status == http.StatusUnauthorized {
		return nil, ErrUnauthenticated
	}
	if status >= 300 && status < 400 {
		return nil, ErrRedirect
	}
	var resp wireResponse
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&resp); err != nil || dec.More() || resp.JSONRPC != "2.0" {
		if status < 200 || status > 299 {
			return nil, &StatusError{StatusCode: status}
		}
		return nil, fmt.Errorf("%w: not a JSON-RPC 2.0 response", ErrMalformedResponse)
	}
	hasResult := len(resp.Result) > 0
	switch {
	case resp.Error != nil && hasResult:
		return nil, fmt.Errorf("%w: both result and error", ErrMalformedResponse)
	case resp.Error != nil:
		// An error may carry a null id when the gateway could not read
		// the request's; any other id must be ours.
		if string(resp.ID) != "null" && string(resp.ID) != strconv.FormatInt(id, 10) {
			return nil, fmt.Errorf("%w: answer to request %s, want %d", ErrMalformedResponse, resp.ID, id)
		}
		rpcErr, err := resp.Error.toRPCError()
		if err != nil {
			return nil, err
		}
		return nil, rpcErr
	case status < 200 || status > 299:
		return nil, &StatusError{StatusCode: status}
	case !hasResult:
		return nil, fmt.Errorf("%w: neither result nor error", ErrMalformedResponse)
	case string(resp.ID) != strconv.FormatInt(id, 10):
		return nil, fmt.Errorf("%w: answer to request %s, want %d", ErrMalformedResponse, resp.ID, id)
	}
	return resp.Result, nil
}

// decodeResult decodes a result into out, reporting a shape mismatch as
// ErrMalformedResponse.
func decodeResult(method string, raw json.RawMessage, out any) error {
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: result of %s: %w", ErrMalformedResponse, method, err)
	}
	return nil
}
