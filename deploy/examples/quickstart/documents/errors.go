package documents

import "errors"

// Sentinel errors. The JSON-RPC front maps each to a JSON-RPC error code
// (see [Front]); match them with errors.Is.
var (
	// ErrParse means the request body is not valid JSON (-32700).
	ErrParse = errors.New("documents: parse error")

	// ErrInvalidRequest means the body is JSON but not a single JSON-RPC
	// 2.0 request object (-32600).
	ErrInvalidRequest = errors.New("documents: invalid request")

	// ErrBatchUnsupported means the body is a JSON-RPC batch; the
	// quickstart agents take one request per HTTP call (-32600).
	ErrBatchUnsupported = errors.New("documents: batch requests are not supported")

	// ErrBodyTooLarge means the body exceeds the front's size limit (-32600).
	ErrBodyTooLarge = errors.New("documents: request body too large")

	// ErrMethodNotFound means no handler serves the JSON-RPC method (-32601).
	ErrMethodNotFound = errors.New("documents: method not found")

	// ErrUnknownSkill means a2a/skill/invoke named a skill this agent does
	// not have (-32601).
	ErrUnknownSkill = errors.New("documents: unknown skill")

	// ErrInvalidParams means the params are missing a member or have the
	// wrong type (-32602).
	ErrInvalidParams = errors.New("documents: invalid params")

	// ErrUnknownResource means a resource id names no document (-32602).
	ErrUnknownResource = errors.New("documents: unknown resource")

	// ErrUnresolvedHandle means an invocation still carries a resource
	// handle: the gateway must replace it with a real id first (-32602).
	ErrUnresolvedHandle = errors.New("documents: resource handle was not resolved by the gateway")

	// ErrOperationNotPermitted means the gateway's A2A-Capability-Operations
	// header does not list the skill's operation (-32044).
	ErrOperationNotPermitted = errors.New("documents: operation not permitted by the presented capability")

	// ErrInvalidOptions means [Options] or [FrontConfig] failed validation.
	ErrInvalidOptions = errors.New("documents: invalid options")
)
