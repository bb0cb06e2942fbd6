package jsonrpc

import (
	"errors"
	"fmt"
	"maps"
	"unicode/utf8"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// capgate's capability error codes (README, "Capability errors"). They sit clear of A2A's
// -32001..-32009.
const (
	CodeCapabilityRequired      = -32040
	CodeCapabilityInvalid       = -32041
	CodeCapabilityExpired       = -32042
	CodeCapabilityRevoked       = -32043
	CodeOperationNotPermitted   = -32044
	CodeResourceNotPermitted    = -32045
	CodeHolderMismatch          = -32046
	CodeGrantDenied             = -32047
	CodeAttenuationNotPermitted = -32048
	CodeRevocationUnavailable   = -32049
	// CodeRateLimited: the caller is over a per-principal limit; data
	// carries the limit and retryAfter, in whole seconds.
	CodeRateLimited = -32050
)

// Stable reason words carried in error.data.reason. Clients may match on
// them; they never change meaning.
const (
	ReasonParseError     = "parse_error"
	ReasonInvalidUTF8    = "invalid_utf8"
	ReasonTooDeep        = "nesting_too_deep"
	ReasonInvalidRequest = "invalid_request"
	ReasonDuplicateKey   = "duplicate_key"
	ReasonBatchTooLarge  = "batch_too_large"
	ReasonEmptyBatch     = "empty_batch"
	ReasonBodyTooLarge   = "body_too_large"
	ReasonMethodNotFound = "method_not_found"
	ReasonInvalidParams  = "invalid_params"
	ReasonInternal       = "internal_error"

	ReasonCapabilityRequired      = "capability_required"
	ReasonCapabilityInvalid       = "capability_invalid"
	ReasonCapabilityExpired       = "capability_expired"
	ReasonCapabilityRevoked       = "capability_revoked"
	ReasonOperationNotPermitted   = "operation_not_permitted"
	ReasonResourceNotPermitted    = "resource_not_permitted"
	ReasonHolderMismatch          = "holder_mismatch"
	ReasonGrantDenied             = "grant_denied"
	ReasonAttenuationNotPermitted = "attenuation_not_permitted"
	ReasonRevocationUnavailable   = "revocation_unavailable"
	ReasonRateLimited             = "rate_limited"

	// ReasonAnswerTooLarge goes with CodeInternal: the agent answered,
	// but its answer (or one stream event) is longer than the limit the
	// gateway holds to check it; data.limit names the limit in bytes.
	ReasonAnswerTooLarge = "answer_too_large"
)

var _ error = (*Error)(nil)

// Error is a JSON-RPC 2.0 error object. It implements error so handlers can
// return it, wrapped or not, and ErrorFor will find it.
type Error struct {
	// Code is the error code.
	Code int `json:"code"`
	// Message is a short human-readable description.
	Message string `json:"message"`
	// Data is extra information; errors built by this package carry a
	// map[string]any with a "reason" word and, often, a "detail".
	Data any `json:"data,omitempty"`
}

// Error returns "jsonrpc: <code> <message>", with the reason word if any.
func (e *Error) Error() string {
	if r := e.Reason(); r != "" {
		return fmt.Sprintf("jsonrpc: %d %s (%s)", e.Code, e.Message, r)
	}
	return fmt.Sprintf("jsonrpc: %d %s", e.Code, e.Message)
}

// Reason returns data.reason, or "" when there is none. Of a Detailed
// error it returns the reason its ErrorInfo carries.
func (e *Error) Reason() string {
	switch d := e.Data.(type) {
	case map[string]any:
		r, _ := d["reason"].(string)
		return r
	case []ErrorInfo:
		if len(d) > 0 {
			return d[0].Metadata["reason"]
		}
	}
	return ""
}

// WithData returns a copy of e whose data also holds key: value. It never
// changes e. A Data that is not a map[string]any is replaced.
func (e *Error) WithData(key string, value any) *Error {
	out := *e
	m, _ := e.Data.(map[string]any)
	m = maps.Clone(m)
	if m == nil {
		m = make(map[string]any, 1)
	}
	m[key] = value
	out.Data = m
	return &out
}

// NewCodeError builds the error for a known code: its standard message and
// data.reason, plus data.detail when detail is not empty. A code this
// package does not know gets the message "Server error" and no reason.
func NewCodeError(code int, detail string) *Error {
	msg, reason := codeText(code)
	data := make(map[string]any, 2)
	if reason != "" {
		data["reason"] = reason
	}
	if detail != "" {
		data["detail"] = detail
	}
	e := &Error{Code: code, Message: msg}
	if len(data) > 0 {
		e.Data = data
	}
	return e
}

func codeText(code int) (message, reason string) {
	switch code {
	case CodeParseError:
		return "Parse error", ReasonParseError
	case CodeInvalidRequest:
		return "Invalid Request", ReasonInvalidRequest
	case CodeMethodNotFound:
		return "Method not found", ReasonMethodNotFound
	case CodeInvalidParams:
		return "Invalid params", ReasonInvalidParams
	case CodeInternal:
		return "Internal error", ReasonInternal
	}
	return capabilityText(code)
}

func capabilityText(code int) (message, reason string) {
	switch code {
	case CodeCapabilityRequired:
		return "Capability required", ReasonCapabilityRequired
	case CodeCapabilityInvalid:
		return "Capability invalid", ReasonCapabilityInvalid
	case CodeCapabilityExpired:
		return "Capability expired", ReasonCapabilityExpired
	case CodeCapabilityRevoked:
		return "Capability revoked", ReasonCapabilityRevoked
	case CodeOperationNotPermitted:
		return "Operation not permitted", ReasonOperationNotPermitted
	case CodeResourceNotPermitted:
		return "Resource not permitted", ReasonResourceNotPermitted
	case CodeHolderMismatch:
		return "Holder mismatch", ReasonHolderMismatch
	case CodeGrantDenied:
		return "Grant denied", ReasonGrantDenied
	case CodeAttenuationNotPermitted:
		return "Attenuation not permitted", ReasonAttenuationNotPermitted
	case CodeRevocationUnavailable:
		return "Revocation status unavailable", ReasonRevocationUnavailable
	case CodeRateLimited:
		return "Rate limited", ReasonRateLimited
	}
	return "Server error", ""
}

// maxDetail bounds data.detail, which may quote the caller's input.
const maxDetail = 256

// ErrorFor maps err to the error to send. An *Error anywhere in err's chain
// is returned as it is. This package's sentinels map to their code, a
// reason word, and err's text as data.detail. Anything else is an internal
// error, -32603, whose text is not sent: it may hold server details.
// ErrorFor(nil) is nil.
func ErrorFor(err error) *Error {
	if err == nil {
		return nil
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	code, reason := classify(err)
	if code == CodeInternal {
		return NewCodeError(CodeInternal, "")
	}
	e := NewCodeError(code, truncate(err.Error(), maxDetail))
	data := e.Data.(map[string]any)
	data["reason"] = reason
	if me, ok := errors.AsType[*MemberError](err); ok {
		data["member"] = me.Member
	}
	return e
}

// classify finds the code and reason for err, most specific sentinel first.
func classify(err error) (code int, reason string) {
	switch {
	case errors.Is(err, ErrInvalidUTF8):
		return CodeParseError, ReasonInvalidUTF8
	case errors.Is(err, ErrTooDeep):
		return CodeParseError, ReasonTooDeep
	case errors.Is(err, ErrParse):
		return CodeParseError, ReasonParseError
	case errors.Is(err, ErrDuplicateKey):
		return CodeInvalidRequest, ReasonDuplicateKey
	case errors.Is(err, ErrBatchTooLarge):
		return CodeInvalidRequest, ReasonBatchTooLarge
	case errors.Is(err, ErrEmptyBatch):
		return CodeInvalidRequest, ReasonEmptyBatch
	case errors.Is(err, ErrBodyTooLarge):
		return CodeInvalidRequest, ReasonBodyTooLarge
	case errors.Is(err, ErrInvalidRequest):
		return CodeInvalidRequest, ReasonInvalidRequest
	case errors.Is(err, ErrInvalidParams):
		return CodeInvalidParams, ReasonInvalidParams
	case errors.Is(err, ErrMethodNotFound):
		return CodeMethodNotFound, ReasonMethodNotFound
	}
	return CodeInternal, ReasonInternal
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// CodeOf is the code a stable reason word stands for, the inverse of the
// reason NewCodeError gives each code; 0 for a word no code carries.
// Fronts use it to put a decision's refusal on the wire.
func CodeOf(reason string) int {
	for _, code := range []int{
		CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternal,
		CodeCapabilityRequired, CodeCapabilityInvalid, CodeCapabilityExpired, CodeCapabilityRevoked,
		CodeOperationNotPermitted, CodeResourceNotPermitted, CodeHolderMismatch, CodeGrantDenied,
		CodeAttenuationNotPermitted, CodeRevocationUnavailable, CodeRateLimited,
	} {
		if _, r := codeText(code); r == reason {
			return code
		}
	}
	return 0
}
