package jsonrpc

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
)

// Error data in A2A v1.0's shape. A2A v0.3 leaves error.data free, and
// capgate sends its own object there ({"reason": …, "detail": …}). A2A
// v1.0's JSON-RPC binding makes error.data a list of typed details, each a
// google.protobuf.Any in its JSON form (an object whose "@type" names the
// message), and SDKs built for v1.0 decode it as such: an object there
// fails the whole response. [Error.Detailed] turns an error into that
// shape, carrying capgate's data in a google.rpc.ErrorInfo.

// TypeErrorInfo is the "@type" of a google.rpc.ErrorInfo detail.
const TypeErrorInfo = "type.googleapis.com/google.rpc.ErrorInfo"

// ErrorDomain is the domain of the ErrorInfo of every error capgate
// sends: its reasons are capgate's own, not A2A's.
const ErrorDomain = "capgate"

// ErrorInfo is google.rpc.ErrorInfo as a typed detail of A2A v1.0's
// error.data.
type ErrorInfo struct {
	// Type is TypeErrorInfo.
	Type string `json:"@type"`
	// Reason is the reason word in upper case, as ErrorInfo's reasons are
	// written ("CAPABILITY_REVOKED").
	Reason string `json:"reason"`
	// Domain is ErrorDomain.
	Domain string `json:"domain"`
	// Metadata carries the error's code, as "code", and each member of
	// its v0.3 data: "reason" (the stable word as v0.3 callers get it),
	// "detail", "member" and the rest, a string as it is and any other
	// value as its JSON text.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Detailed returns a copy of e whose data is in A2A v1.0's shape: a list
// holding one ErrorInfo that carries e's code and every member of e's
// data. Data that names no reason gets its code's reason word, or
// server_error for a code this package does not know. It never changes
// e. An error without data, which both generations read alike, and a
// Detailed error are returned as they are.
func (e *Error) Detailed() *Error {
	if _, ok := e.Data.([]ErrorInfo); ok || e.Data == nil {
		return e
	}
	meta := dataMembers(e.Data)
	if meta["reason"] == "" {
		_, reason := codeText(e.Code)
		meta["reason"] = cmp.Or(reason, "server_error")
	}
	meta["code"] = strconv.Itoa(e.Code)
	out := *e
	out.Data = []ErrorInfo{{
		Type: TypeErrorInfo, Reason: strings.ToUpper(meta["reason"]), Domain: ErrorDomain, Metadata: meta,
	}}
	return &out
}

// dataMembers is data's members as ErrorInfo metadata: a string as it is,
// any other value as its JSON text. Data that is not an object is kept
// whole under "data".
func dataMembers(data any) map[string]string {
	meta := map[string]string{}
	if data == nil {
		return meta
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return meta
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil || members == nil {
		meta["data"] = string(raw)
		return meta
	}
	for name, v := range members {
		var s string
		if json.Unmarshal(v, &s) == nil {
			meta[name] = s
			continue
		}
		meta[name] = string(v)
	}
	return meta
}
