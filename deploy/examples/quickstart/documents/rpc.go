package documents

import (
	"encoding/json"
	"errors"
	"net/http"
)

// JSON-RPC error codes the quickstart agents answer with.
const (
	CodeParseError            = -32700
	CodeInvalidRequest        = -32600
	CodeMethodNotFound        = -32601
	CodeInvalidParams         = -32602
	CodeInternalError         = -32603
	CodeOperationNotPermitted = -32044
)

// ReasonOperationNotPermitted is error.data.reason for
// CodeOperationNotPermitted; it is the gateway's word for the same denial.
const ReasonOperationNotPermitted = "operation_not_permitted"

// RPCError is the JSON-RPC error object the front writes. Data.reason is a
// stable machine-readable word ("unknown_resource", "unknown_skill", …).
type RPCError struct {
	Code    int            `json:"code"`           // JSON-RPC error code
	Message string         `json:"message"`        // human-readable message
	Data    map[string]any `json:"data,omitempty"` // data.reason holds the stable word
}

// rpcRequest is a single JSON-RPC 2.0 request. ID keeps its raw form so it
// is echoed byte for byte; a nil ID means a notification.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// errorMapping pairs a sentinel with its code and reason word.
type errorMapping struct {
	err    error
	code   int
	reason string
}

func errorMappings() []errorMapping {
	return []errorMapping{
		{ErrParse, CodeParseError, "parse_error"},
		{ErrBatchUnsupported, CodeInvalidRequest, "batch_unsupported"},
		{ErrBodyTooLarge, CodeInvalidRequest, "body_too_large"},
		{ErrInvalidRequest, CodeInvalidRequest, "invalid_request"},
		{ErrUnknownSkill, CodeMethodNotFound, "unknown_skill"},
		{ErrMethodNotFound, CodeMethodNotFound, "method_not_found"},
		{ErrUnknownResource, CodeInvalidParams, "unknown_resource"},
		{ErrUnresolvedHandle, CodeInvalidParams, "unresolved_handle"},
		{ErrInvalidParams, CodeInvalidParams, "invalid_params"},
		{ErrOperationNotPermitted, CodeOperationNotPermitted, ReasonOperationNotPermitted},
	}
}

// ToRPCError maps an error to the JSON-RPC error object the front sends.
// Sentinels of this package keep their message (which names the offending
// skill or resource); any other error becomes a bare -32603 so internal
// details never leak.
func ToRPCError(err error) *RPCError {
	for _, m := range errorMappings() {
		if errors.Is(err, m.err) {
			return &RPCError{Code: m.code, Message: err.Error(), Data: map[string]any{"reason": m.reason}}
		}
	}
	return &RPCError{Code: CodeInternalError, Message: "internal error", Data: map[string]any{"reason": "internal_error"}}
}

func writeRPC(w http.ResponseWriter, status int, resp rpcResponse) {
	resp.JSONRPC = "2.0"
	if resp.ID == nil {
		resp.ID = json.RawMessage("null")
	}
	body, err := json.Marshal(resp)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, err error) {
	writeRPC(w, status, rpcResponse{ID: id, Error: ToRPCError(err)})
}
