package jsonrpc

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestErrorFor(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantCode   int
		wantReason string
		wantDetail bool
	}{
		{"parse", fmt.Errorf("%w: x", ErrParse), CodeParseError, ReasonParseError, true},
		{"utf8", fmt.Errorf("%w at offset 1", ErrInvalidUTF8), CodeParseError, ReasonInvalidUTF8, true},
		{"too deep", ErrTooDeep, CodeParseError, ReasonTooDeep, true},
		{"duplicate", fmt.Errorf("%w: \"a\"", ErrDuplicateKey), CodeInvalidRequest, ReasonDuplicateKey, true},
		{"case variant", ErrCaseVariantKey, CodeInvalidRequest, ReasonDuplicateKey, true},
		{"batch too large", ErrBatchTooLarge, CodeInvalidRequest, ReasonBatchTooLarge, true},
		{"empty batch", ErrEmptyBatch, CodeInvalidRequest, ReasonEmptyBatch, true},
		{"body too large", ErrBodyTooLarge, CodeInvalidRequest, ReasonBodyTooLarge, true},
		{"invalid request", fmt.Errorf("%w: no method", ErrInvalidRequest), CodeInvalidRequest, ReasonInvalidRequest, true},
		{"invalid params", fmt.Errorf("%w: x", ErrInvalidParams), CodeInvalidParams, ReasonInvalidParams, true},
		{"method not found", ErrMethodNotFound, CodeMethodNotFound, ReasonMethodNotFound, true},
		{"other error is internal, text withheld", io.ErrUnexpectedEOF, CodeInternal, ReasonInternal, false},
		{"invalid limits is internal", ErrInvalidLimits, CodeInternal, ReasonInternal, false},
		{"wrapped wire error passes through", fmt.Errorf("ctx: %w", NewCodeError(CodeCapabilityRevoked, "")), CodeCapabilityRevoked, ReasonCapabilityRevoked, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ErrorFor(tt.err)
			if e.Code != tt.wantCode || e.Reason() != tt.wantReason {
				t.Fatalf("ErrorFor() = %d %q, want %d %q", e.Code, e.Reason(), tt.wantCode, tt.wantReason)
			}
			_, hasDetail := e.Data.(map[string]any)["detail"]
			if hasDetail != tt.wantDetail {
				t.Errorf("detail present = %v, want %v (data %v)", hasDetail, tt.wantDetail, e.Data)
			}
		})
	}
	if ErrorFor(nil) != nil {
		t.Error("ErrorFor(nil) != nil")
	}
}

func TestErrorForDetailIsBounded(t *testing.T) {
	err := fmt.Errorf("%w: %s", ErrInvalidRequest, strings.Repeat("é", 1000))
	d := ErrorFor(err).Data.(map[string]any)["detail"].(string)
	if len(d) > maxDetail+len("…") || !strings.HasSuffix(d, "…") || !strings.HasPrefix(d, "jsonrpc:") {
		t.Errorf("detail has %d bytes: %q", len(d), d)
	}
}

func TestCapabilityCodes(t *testing.T) {
	tests := []struct {
		code   int
		reason string
	}{
		{-32040, "capability_required"},
		{-32041, "capability_invalid"},
		{-32042, "capability_expired"},
		{-32043, "capability_revoked"},
		{-32044, "operation_not_permitted"},
		{-32045, "resource_not_permitted"},
		{-32046, "holder_mismatch"},
		{-32047, "grant_denied"},
		{-32048, "attenuation_not_permitted"},
		{-32049, "revocation_unavailable"},
		{-32700, "parse_error"},
		{-32600, "invalid_request"},
		{-32601, "method_not_found"},
		{-32602, "invalid_params"},
		{-32603, "internal_error"},
	}
	for _, tt := range tests {
		e := NewCodeError(tt.code, "d")
		if e.Reason() != tt.reason || e.Message == "" || e.Message == "Server error" {
			t.Errorf("NewCodeError(%d) = %+v, want reason %q", tt.code, e, tt.reason)
		}
	}
	unknown := NewCodeError(-32001, "")
	if unknown.Reason() != "" || unknown.Data != nil || unknown.Message != "Server error" {
		t.Errorf("NewCodeError(-32001) = %+v", unknown)
	}
}

func TestErrorWithData(t *testing.T) {
	base := NewCodeError(CodeGrantDenied, "no rule matched")
	got := base.WithData("rule", "contractors-deny-hr")
	if _, ok := base.Data.(map[string]any)["rule"]; ok {
		t.Fatal("WithData changed the original")
	}
	m := got.Data.(map[string]any)
	if m["rule"] != "contractors-deny-hr" || m["reason"] != ReasonGrantDenied || m["detail"] != "no rule matched" {
		t.Errorf("WithData() data = %v", m)
	}
	if other := (&Error{Code: 1, Data: "x"}).WithData("k", 1); other.Data.(map[string]any)["k"] != 1 {
		t.Errorf("WithData on non-map data = %v", other.Data)
	}
	var target *Error
	if !errors.As(fmt.Errorf("w: %w", got), &target) || target.Error() != "jsonrpc: -32047 Grant denied (grant_denied)" {
		t.Errorf("Error() = %v", target)
	}
}
