package jsonrpc

import (
	"encoding/json"
	"maps"
	"testing"
)

func TestDetailed(t *testing.T) {
	tests := []struct {
		name       string
		in         *Error
		wantReason string
		wantMeta   map[string]string
	}{
		{
			name: "capability refusal with its members",
			in: &Error{Code: CodeOperationNotPermitted, Message: "operation not permitted", Data: map[string]any{
				"reason": ReasonOperationNotPermitted, "detail": "tasks/cancel is not among the capability's operations", "member": "params.id",
			}},
			wantReason: "OPERATION_NOT_PERMITTED",
			wantMeta: map[string]string{
				"reason": ReasonOperationNotPermitted, "code": "-32044",
				"detail": "tasks/cancel is not among the capability's operations", "member": "params.id",
			},
		},
		{
			name:       "members that are not strings travel as their JSON text",
			in:         NewCodeError(CodeRateLimited, "").WithData("retryAfter", 30).WithData("rules", []string{"deny a"}),
			wantReason: "RATE_LIMITED",
			wantMeta:   map[string]string{"reason": ReasonRateLimited, "code": "-32050", "retryAfter": "30", "rules": `["deny a"]`},
		},
		{
			name:       "no reason: the code's own",
			in:         &Error{Code: CodeMethodNotFound, Message: "method not found: x", Data: map[string]any{"method": "x"}},
			wantReason: "METHOD_NOT_FOUND",
			wantMeta:   map[string]string{"reason": ReasonMethodNotFound, "code": "-32601", "method": "x"},
		},
		{
			name:       "map of strings",
			in:         &Error{Code: CodeInvalidRequest, Message: "unknown agent", Data: map[string]string{"reason": "unknown_agent"}},
			wantReason: "UNKNOWN_AGENT",
			wantMeta:   map[string]string{"reason": "unknown_agent", "code": "-32600"},
		},
		{
			name:       "unknown code, data not an object",
			in:         &Error{Code: -32099, Message: "odd", Data: []int{1}},
			wantReason: "SERVER_ERROR",
			wantMeta:   map[string]string{"reason": "server_error", "code": "-32099", "data": "[1]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.in)
			got := tt.in.Detailed()
			if after, _ := json.Marshal(tt.in); string(after) != string(before) {
				t.Fatalf("Detailed changed its receiver: %s, was %s", after, before)
			}
			infos, ok := got.Data.([]ErrorInfo)
			if !ok || len(infos) != 1 {
				t.Fatalf("data = %#v, want one ErrorInfo", got.Data)
			}
			info := infos[0]
			if got.Code != tt.in.Code || got.Message != tt.in.Message || info.Type != TypeErrorInfo ||
				info.Domain != ErrorDomain || info.Reason != tt.wantReason || !maps.Equal(info.Metadata, tt.wantMeta) {
				t.Errorf("Detailed() = %d %q %+v, want reason %s, metadata %v", got.Code, got.Message, info, tt.wantReason, tt.wantMeta)
			}
			if got.Reason() != tt.wantMeta["reason"] {
				t.Errorf("Reason() = %q, want %q", got.Reason(), tt.wantMeta["reason"])
			}
			if again := got.Detailed(); again != got {
				t.Error("a Detailed error was detailed again")
			}
		})
	}
}

// TestDetailedWithoutData: an error without data is the same in both
// generations, and stays as it is.
func TestDetailedWithoutData(t *testing.T) {
	e := &Error{Code: -32001, Message: "Task not found"}
	if got := e.Detailed(); got != e {
		t.Errorf("Detailed() = %#v, want the error as it is", got)
	}
}

// TestDetailedWire is the v1.0 error as it leaves the gateway: error.data
// is a list of typed details, each an object naming its "@type".
func TestDetailedWire(t *testing.T) {
	resp := NewError(json.RawMessage(`7`), NewCodeError(CodeCapabilityRevoked, "revoked at 12:00").Detailed())
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32043,"message":"Capability revoked","data":[` +
		`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"CAPABILITY_REVOKED","domain":"capgate",` +
		`"metadata":{"code":"-32043","detail":"revoked at 12:00","reason":"capability_revoked"}}]}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
