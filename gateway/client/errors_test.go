package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestAnswers feeds each method the answers a gateway, a broken proxy or a
// hostile server might give, and checks the error each becomes.
func TestAnswers(t *testing.T) {
	revoked := map[string]any{"reason": "capability_revoked"}
	tests := []struct {
		name     string
		answer   func(http.ResponseWriter, map[string]json.RawMessage)
		call     string // request, invoke, attenuate, revoke
		wantErr  error
		wantCode int // for an *RPCError
	}{
		{"result", result(map[string]any{"title": "Q1"}), "invoke", nil, 0},
		{"null result", raw(200, `{"jsonrpc":"2.0","id":1,"result":null}`), "invoke", nil, 0},
		{"refusal", rpcError(200, -32043, "Capability revoked", revoked), "invoke", client.ErrCapabilityRevoked, -32043},
		{"refusal matches ErrRPC", rpcError(200, -32043, "Capability revoked", revoked), "invoke", client.ErrRPC, -32043},
		{"error with null id", raw(200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`), "invoke", client.ErrRPC, -32700},
		{"413 with a JSON-RPC error", rpcError(413, -32600, "Invalid Request", map[string]any{"reason": "body_too_large"}), "invoke", client.ErrRPC, -32600},
		{"grant denied", rpcError(200, -32047, "grant denied", map[string]any{"reason": "grant_denied", "rules": []string{"deny x"}}), "request", client.ErrGrantDenied, -32047},
		{"not attenuable", rpcError(200, -32048, "no", map[string]any{"reason": "attenuation_not_permitted"}), "attenuate", client.ErrAttenuationNotPermitted, -32048},
		{"store down on revoke", rpcError(200, -32049, "not revoked", map[string]any{"reason": "revocation_unavailable"}), "revoke", client.ErrRevocationUnavailable, -32049},
		{"401", raw(401, ``), "invoke", client.ErrUnauthenticated, 0},
		{"401 with a JSON body", rpcError(401, -32040, "x", revoked), "invoke", client.ErrUnauthenticated, 0},
		{"502 from a proxy", raw(502, `<html>Bad Gateway</html>`), "invoke", client.ErrHTTPStatus, 0},
		{"500 JSON without error", raw(500, `{"jsonrpc":"2.0","id":1,"result":{}}`), "invoke", client.ErrHTTPStatus, 0},
		{"not JSON", raw(200, `hello`), "invoke", client.ErrMalformedResponse, 0},
		{"empty body", raw(200, ``), "invoke", client.ErrMalformedResponse, 0},
		{"wrong version", raw(200, `{"jsonrpc":"1.0","id":1,"result":{}}`), "invoke", client.ErrMalformedResponse, 0},
		{"batch answer", raw(200, `[{"jsonrpc":"2.0","id":1,"result":{}}]`), "invoke", client.ErrMalformedResponse, 0},
		{"trailing garbage", raw(200, `{"jsonrpc":"2.0","id":1,"result":{}} {"x":1}`), "invoke", client.ErrMalformedResponse, 0},
		{"other id", raw(200, `{"jsonrpc":"2.0","id":2,"result":{}}`), "invoke", client.ErrMalformedResponse, 0},
		{"string id", raw(200, `{"jsonrpc":"2.0","id":"1","result":{}}`), "invoke", client.ErrMalformedResponse, 0},
		{"error for another id", raw(200, `{"jsonrpc":"2.0","id":7,"error":{"code":-32043,"message":"x"}}`), "invoke", client.ErrMalformedResponse, 0},
		{"both result and error", raw(200, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`), "invoke", client.ErrMalformedResponse, 0},
		{"neither", raw(200, `{"jsonrpc":"2.0","id":1}`), "invoke", client.ErrMalformedResponse, 0},
		{"error without code", raw(200, `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`), "invoke", client.ErrMalformedResponse, 0},
		{"request: no capability", result(map[string]any{"capabilities": []any{}}), "request", client.ErrMalformedResponse, 0},
		{"request: wrong shape", result(map[string]any{"capabilities": "cap_1"}), "request", client.ErrMalformedResponse, 0},
		{"request: capability without token", result(map[string]any{"capabilities": []any{map[string]any{"id": "cap_1"}}}), "request", client.ErrMalformedResponse, 0},
		{"attenuate: two children", result(map[string]any{"capabilities": []any{issued("a"), issued("b")}}), "attenuate", client.ErrMalformedResponse, 0},
		{"revoke: not confirmed", result(map[string]any{"revoked": false, "capabilityId": "cap_parent"}), "revoke", client.ErrMalformedResponse, 0},
		{"revoke: another capability", result(map[string]any{"revoked": true, "capabilityId": "cap_other"}), "revoke", client.ErrMalformedResponse, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGateway(t, tt.answer)
			err := callByName(newClient(t, g.srv.URL, client.Options{}), tt.call)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			rpcErr, isRPC := errors.AsType[*client.RPCError](err)
			if isRPC != (tt.wantCode != 0) || (isRPC && rpcErr.Code != tt.wantCode) {
				t.Errorf("err = %#v, want an *RPCError with code %d: %v", err, tt.wantCode, isRPC)
			}
			if !isRPC && errors.Is(err, client.ErrRPC) {
				t.Errorf("a technical failure matches ErrRPC: %v", err)
			}
		})
	}
}

func callByName(c *client.Client, name string) error {
	ctx := context.Background()
	var err error
	switch name {
	case "request":
		_, err = c.Request(ctx, client.RequestParams{Grants: []string{"documents:read"}})
	case "invoke":
		_, err = c.Invoke(ctx, testCap(), "retrieve_document", nil)
	case "attenuate":
		_, err = c.Attenuate(ctx, testCap(), client.Constraints{})
	case "revoke":
		err = c.Revoke(ctx, testCap())
	}
	return err
}

// TestRPCErrorIs checks which sentinels an *RPCError matches: its reason's,
// or its code's when it carries no reason, and always ErrRPC.
func TestRPCErrorIs(t *testing.T) {
	tests := []struct {
		name    string
		err     *client.RPCError
		target  error
		matches bool
	}{
		{"reason", &client.RPCError{Code: -32043, Reason: "capability_revoked"}, client.ErrCapabilityRevoked, true},
		{"reason wins over code", &client.RPCError{Code: -32041, Reason: "capability_revoked"}, client.ErrCapabilityInvalid, false},
		{"reason wins over code (2)", &client.RPCError{Code: -32041, Reason: "capability_revoked"}, client.ErrCapabilityRevoked, true},
		{"code without reason", &client.RPCError{Code: -32045}, client.ErrResourceNotPermitted, true},
		{"other sentinel", &client.RPCError{Code: -32045, Reason: "resource_not_permitted"}, client.ErrOperationNotPermitted, false},
		{"unknown reason", &client.RPCError{Code: -32099, Reason: "something_new"}, client.ErrCapabilityInvalid, false},
		{"unknown reason is ErrRPC", &client.RPCError{Code: -32099, Reason: "something_new"}, client.ErrRPC, true},
		{"not a technical failure", &client.RPCError{Code: -32049, Reason: "revocation_unavailable"}, client.ErrTransport, false},
		{"agent's own invalid params", &client.RPCError{Code: -32602}, client.ErrInvalidParams, true},
		{"method not found", &client.RPCError{Code: -32601, Reason: "method_not_found"}, client.ErrMethodNotFound, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, tt.target); got != tt.matches {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.matches)
			}
		})
	}
}

// TestSentinelsMatchTheGateway checks every gateway reason word and code of
// gateway/jsonrpc against the client's sentinels, so the two cannot drift.
func TestSentinelsMatchTheGateway(t *testing.T) {
	for _, tt := range []struct {
		code   int
		reason string
		want   error
	}{
		{jsonrpc.CodeCapabilityRequired, jsonrpc.ReasonCapabilityRequired, client.ErrCapabilityRequired},
		{jsonrpc.CodeCapabilityInvalid, jsonrpc.ReasonCapabilityInvalid, client.ErrCapabilityInvalid},
		{jsonrpc.CodeCapabilityExpired, jsonrpc.ReasonCapabilityExpired, client.ErrCapabilityExpired},
		{jsonrpc.CodeCapabilityRevoked, jsonrpc.ReasonCapabilityRevoked, client.ErrCapabilityRevoked},
		{jsonrpc.CodeOperationNotPermitted, jsonrpc.ReasonOperationNotPermitted, client.ErrOperationNotPermitted},
		{jsonrpc.CodeResourceNotPermitted, jsonrpc.ReasonResourceNotPermitted, client.ErrResourceNotPermitted},
		{jsonrpc.CodeHolderMismatch, jsonrpc.ReasonHolderMismatch, client.ErrHolderMismatch},
		{jsonrpc.CodeGrantDenied, jsonrpc.ReasonGrantDenied, client.ErrGrantDenied},
		{jsonrpc.CodeAttenuationNotPermitted, jsonrpc.ReasonAttenuationNotPermitted, client.ErrAttenuationNotPermitted},
		{jsonrpc.CodeRevocationUnavailable, jsonrpc.ReasonRevocationUnavailable, client.ErrRevocationUnavailable},
		{jsonrpc.CodeMethodNotFound, jsonrpc.ReasonMethodNotFound, client.ErrMethodNotFound},
		{jsonrpc.CodeInvalidParams, jsonrpc.ReasonInvalidParams, client.ErrInvalidParams},
	} {
		byReason := &client.RPCError{Code: 1, Reason: tt.reason}
		byCode := &client.RPCError{Code: tt.code}
		if !errors.Is(byReason, tt.want) || !errors.Is(byCode, tt.want) {
			t.Errorf("%d %s does not match %v", tt.code, tt.reason, tt.want)
		}
	}
}

func TestRPCErrorText(t *testing.T) {
	g := newFakeGateway(t, rpcError(200, -32043, strings.Repeat("x", 10_000)+"\nInjected: line", map[string]any{"reason": 42}))
	err := callByName(newClient(t, g.srv.URL, client.Options{}), "invoke")
	rpcErr, ok := errors.AsType[*client.RPCError](err)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if rpcErr.Reason != "" || !errors.Is(err, client.ErrCapabilityRevoked) {
		t.Errorf("a non-string reason must count as none, and the code decide: %+v", rpcErr)
	}
	if s := err.Error(); len(s) > 300 || strings.Contains(s, "\n") {
		t.Errorf("Error() is %d bytes or multi-line: %.80q", len(s), s)
	}
	if string(rpcErr.Data) != `{"reason":42}` {
		t.Errorf("Data = %s", rpcErr.Data)
	}
}

func TestStatusError(t *testing.T) {
	g := newFakeGateway(t, raw(502, `<html>Bad Gateway</html>`))
	err := callByName(newClient(t, g.srv.URL, client.Options{}), "invoke")
	se, ok := errors.AsType[*client.StatusError](err)
	if !ok || se.StatusCode != 502 || !errors.Is(err, client.ErrHTTPStatus) {
		t.Errorf("err = %#v, want a *StatusError 502 matching ErrHTTPStatus", err)
	}
}
