package issue_test

import (
	"errors"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
)

func TestPresentedToken(t *testing.T) {
	tests := []struct {
		name, header, params, want string
		wantCode                   int
	}{
		{"header only", " tok ", "", "tok", 0},
		{"params only", "", "tok", "tok", 0},
		{"both agree", "tok", "tok", "tok", 0},
		{"both differ", "a", "b", "", jsonrpc.CodeCapabilityInvalid},
		{"neither", "", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := issue.PresentedToken(tt.header, tt.params)
			if got != tt.want || (e == nil) != (tt.wantCode == 0) || e != nil && e.Code != tt.wantCode {
				t.Errorf("PresentedToken(%q, %q) = %q, %v; want %q, code %d", tt.header, tt.params, got, e, tt.want, tt.wantCode)
			}
		})
	}
}

func TestCheckRevoker(t *testing.T) {
	c := &captoken.Claims{Principal: "user:alice@example.com", Holder: "agent:summarizer"}
	tests := []struct {
		caller   string
		wantCode int
	}{
		{"agent:summarizer", 0},
		{"user:alice@example.com", 0},
		{"user:bob@example.com", jsonrpc.CodeHolderMismatch},
	}
	for _, tt := range tests {
		e := issue.CheckRevoker(c, tt.caller)
		if (e == nil) != (tt.wantCode == 0) || e != nil && e.Code != tt.wantCode {
			t.Errorf("CheckRevoker(%s) = %v, want code %d", tt.caller, e, tt.wantCode)
		}
	}
}

func TestLimitError(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantCode   int
		wantReason string
	}{
		{"allowed", nil, 0, ""},
		{"refused", &ratelimit.Refusal{Limit: ratelimit.Issue, RetryAfter: 1500 * time.Millisecond}, jsonrpc.CodeRateLimited, jsonrpc.ReasonRateLimited},
		{"store down", errors.New("redis down"), jsonrpc.CodeRevocationUnavailable, jsonrpc.ReasonRevocationUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := issue.LimitError(tt.err)
			if (e == nil) != (tt.wantCode == 0) || e != nil && (e.Code != tt.wantCode || e.Reason() != tt.wantReason) {
				t.Errorf("LimitError(%v) = %v, want %d %s", tt.err, e, tt.wantCode, tt.wantReason)
			}
		})
	}
}

func TestNoResolver(t *testing.T) {
	err := issue.NoResolver("MCP server files has no catalog")
	if !errors.Is(err, issue.ErrNoResolver) || err.Error() != "MCP server files has no catalog" {
		t.Errorf("NoResolver = %v, want ErrNoResolver reading as its explanation", err)
	}
}
