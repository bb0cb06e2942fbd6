package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Sentinel errors for technical failures and bad arguments. Match them with
// errors.Is.
var (
	// ErrInvalidOptions means New or NewEndpoint was given a gateway URL,
	// agent name or Options it cannot use.
	ErrInvalidOptions = errors.New("client: invalid options")
	// ErrInvalidArgument means a call was refused before anything was sent:
	// a missing grant, skill or capability id, or a method Delegate does
	// not send.
	ErrInvalidArgument = errors.New("client: invalid argument")
	// ErrTransport means the gateway could not be reached or the exchange
	// broke off (connection refused, timeout, cancelled context).
	ErrTransport = errors.New("client: gateway unreachable")
	// ErrUnauthenticated means the gateway answered 401: the credential is
	// missing, unknown or expired.
	ErrUnauthenticated = errors.New("client: gateway refused the credential (HTTP 401)")
	// ErrRedirect means the gateway answered with a redirect. It is never
	// followed: the body carries capability tokens, which must reach the
	// configured gateway and nothing else.
	ErrRedirect = errors.New("client: gateway answered with a redirect; not followed")
	// ErrHTTPStatus means the gateway answered a non-2xx status without a
	// JSON-RPC error in the body.
	ErrHTTPStatus = errors.New("client: unexpected HTTP status")
	// ErrResponseTooLarge means the answer exceeded Options.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("client: response too large")
	// ErrMalformedResponse means the answer is not the JSON-RPC response to
	// the request sent: not JSON, a different id, both or neither of result
	// and error, or a result that is not in the shape the method returns.
	ErrMalformedResponse = errors.New("client: malformed response")
	// ErrRPC is matched by every *RPCError, whatever its reason.
	ErrRPC = errors.New("client: JSON-RPC error")
)

// Sentinels for the gateway's refusals, one per stable error.data.reason
// word (the codes and words of gateway/jsonrpc). An *RPCError matches the sentinel of its reason, so
// errors.Is(err, client.ErrCapabilityRevoked) works on whatever a method
// returns.
var (
	ErrCapabilityRequired      = errors.New("client: capability required")       // -32040 capability_required
	ErrCapabilityInvalid       = errors.New("client: capability invalid")        // -32041 capability_invalid
	ErrCapabilityExpired       = errors.New("client: capability expired")        // -32042 capability_expired
	ErrCapabilityRevoked       = errors.New("client: capability revoked")        // -32043 capability_revoked
	ErrOperationNotPermitted   = errors.New("client: operation not permitted")   // -32044 operation_not_permitted
	ErrResourceNotPermitted    = errors.New("client: resource not permitted")    // -32045 resource_not_permitted
	ErrHolderMismatch          = errors.New("client: holder mismatch")           // -32046 holder_mismatch
	ErrGrantDenied             = errors.New("client: grant denied")              // -32047 grant_denied
	ErrAttenuationNotPermitted = errors.New("client: attenuation not permitted") // -32048 attenuation_not_permitted
	ErrRevocationUnavailable   = errors.New("client: revocation unavailable")    // -32049 revocation_unavailable
	ErrMethodNotFound          = errors.New("client: method not found")          // -32601 method_not_found
	ErrInvalidParams           = errors.New("client: invalid params")            // -32602 invalid_params
)

// ErrOperationNotVouched is returned, wrapped, by RequireOperation when the
// gateway vouched for no capability covering the operation an agent is
// about to perform. It also matches ErrOperationNotPermitted: a refusal by
// the agent means what the gateway's -32044 means.
var ErrOperationNotVouched error = operationNotVouched{}

type operationNotVouched struct{}

func (operationNotVouched) Error() string { return "client: operation not vouched for by the gateway" }
func (operationNotVouched) Unwrap() error { return ErrOperationNotPermitted }

// StatusError is a non-2xx answer that carried no JSON-RPC error, for
// callers that need the status. It matches ErrHTTPStatus.
type StatusError struct {
	// StatusCode is the HTTP status, e.g. 502.
	StatusCode int
}

// Error renders "client: unexpected HTTP status <code>".
func (e *StatusError) Error() string {
	return "client: unexpected HTTP status " + strconv.Itoa(e.StatusCode)
}

// Is reports whether target is ErrHTTPStatus.
func (e *StatusError) Is(target error) bool { return target == ErrHTTPStatus }

// reasonSentinel is one row of the reason table: the stable word, the
// JSON-RPC code the gateway sends with it, and its sentinel.
type reasonSentinel struct {
	reason string
	code   int
	err    error
}

// reasonTable returns the reason words the client knows. It is a function,
// not a package variable, so that nothing in the package is mutable.
func reasonTable() [12]reasonSentinel {
	return [12]reasonSentinel{
		{jsonrpc.ReasonCapabilityRequired, jsonrpc.CodeCapabilityRequired, ErrCapabilityRequired},
		{jsonrpc.ReasonCapabilityInvalid, jsonrpc.CodeCapabilityInvalid, ErrCapabilityInvalid},
		{jsonrpc.ReasonCapabilityExpired, jsonrpc.CodeCapabilityExpired, ErrCapabilityExpired},
		{jsonrpc.ReasonCapabilityRevoked, jsonrpc.CodeCapabilityRevoked, ErrCapabilityRevoked},
		{jsonrpc.ReasonOperationNotPermitted, jsonrpc.CodeOperationNotPermitted, ErrOperationNotPermitted},
		{jsonrpc.ReasonResourceNotPermitted, jsonrpc.CodeResourceNotPermitted, ErrResourceNotPermitted},
		{jsonrpc.ReasonHolderMismatch, jsonrpc.CodeHolderMismatch, ErrHolderMismatch},
		{jsonrpc.ReasonGrantDenied, jsonrpc.CodeGrantDenied, ErrGrantDenied},
		{jsonrpc.ReasonAttenuationNotPermitted, jsonrpc.CodeAttenuationNotPermitted, ErrAttenuationNotPermitted},
		{jsonrpc.ReasonRevocationUnavailable, jsonrpc.CodeRevocationUnavailable, ErrRevocationUnavailable},
		{jsonrpc.ReasonMethodNotFound, jsonrpc.CodeMethodNotFound, ErrMethodNotFound},
		{jsonrpc.ReasonInvalidParams, jsonrpc.CodeInvalidParams, ErrInvalidParams},
	}
}

// RPCError is a JSON-RPC error the gateway (or, through it, the agent)
// answered. It is a refusal, not a transport failure: the request arrived
// and was decided. Get it with errors.As; match its reason with errors.Is
// and the sentinels above.
type RPCError struct {
	// Code is error.code, e.g. -32043.
	Code int
	// Message is error.message, for humans.
	Message string
	// Reason is error.data.reason, the stable machine-readable word (e.g.
	// "capability_revoked"); empty when the answer carried none.
	Reason string
	// Data is error.data as sent, e.g. the rules and reasons of a
	// grant_denied; nil when absent.
	Data json.RawMessage
}

// maxMessageInError bounds how much of error.message Error quotes.
const maxMessageInError = 200

// Error renders "client: JSON-RPC error <code> <reason>: <message>".
func (e *RPCError) Error() string {
	msg := e.Message
	if r := []rune(msg); len(r) > maxMessageInError {
		msg = string(r[:maxMessageInError]) + "…"
	}
	s := "client: JSON-RPC error " + strconv.Itoa(e.Code)
	if e.Reason != "" {
		s += " " + e.Reason
	}
	return s + ": " + strconv.Quote(msg)
}

// Is reports whether target is ErrRPC or the sentinel of e's reason. When
// the answer carried no reason word, the code decides instead.
func (e *RPCError) Is(target error) bool {
	if target == ErrRPC {
		return true
	}
	for _, row := range reasonTable() {
		if row.err != target {
			continue
		}
		if e.Reason != "" {
			return e.Reason == row.reason
		}
		return e.Code == row.code
	}
	return false
}

// wireError is error as it travels.
type wireError struct {
	Code    *int            `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// toRPCError converts a decoded error object. A reason is read only from a
// data object; any other data is kept raw.
func (w *wireError) toRPCError() (*RPCError, error) {
	if w.Code == nil {
		return nil, fmt.Errorf("%w: error without a code", ErrMalformedResponse)
	}
	e := &RPCError{Code: *w.Code, Message: w.Message}
	if len(w.Data) > 0 && string(w.Data) != "null" {
		e.Data = w.Data
		var d struct {
			Reason json.RawMessage `json:"reason"`
		}
		if json.Unmarshal(w.Data, &d) == nil && len(d.Reason) > 0 {
			_ = json.Unmarshal(d.Reason, &e.Reason) // a non-string reason is no reason
		}
	}
	return e, nil
}
