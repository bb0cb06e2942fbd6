package a2afront

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// code is the refusal's code, or 0 for none.
func code(e *jsonrpc.Error) int {
	if e == nil {
		return 0
	}
	return e.Code
}

func TestCheckRevoker(t *testing.T) {
	c := &captoken.Claims{Principal: "user:alice@example.com", Holder: "agent:summarizer"}
	tests := []struct {
		caller      string
		wantRefusal bool
	}{
		{caller: "agent:summarizer"},
		{caller: "user:alice@example.com"},
		{caller: "user:bob@example.com", wantRefusal: true},
	}
	for _, tt := range tests {
		if got := checkRevoker(c, tt.caller) != nil; got != tt.wantRefusal {
			t.Errorf("checkRevoker(%s) refused = %v", tt.caller, got)
		}
	}
}

// TestWireError: every reason the decision core refuses with has its
// code on the A2A wire, and the refusal's members travel beside the
// reason as they always did.
func TestWireError(t *testing.T) {
	for _, r := range enforce.Reasons() {
		if jsonrpc.CodeOf(string(r)) == 0 {
			t.Errorf("reason %s has no JSON-RPC code", r)
		}
	}
	c := &captoken.Claims{Operations: []string{"retrieve"}}
	got := wireError(enforce.CheckOperation(c, "update"))
	want := &jsonrpc.Error{Code: jsonrpc.CodeOperationNotPermitted, Message: "operation update is not in the capability",
		Data: map[string]any{"reason": "operation_not_permitted", "operation": "update", "allowed": []string{"retrieve"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wireError = %#v, want %#v", got, want)
	}
	if wireError(nil) != nil {
		t.Error("wireError(nil) is not nil")
	}
}

func TestPresentedToken(t *testing.T) {
	tests := []struct {
		name, header, params, want string
		wantCode                   int
	}{
		{name: "none"},
		{name: "header only", header: "h.t.s", want: "h.t.s"},
		{name: "params only", params: "p.t.s", want: "p.t.s"},
		{name: "both agree", header: "x.y.z", params: "x.y.z", want: "x.y.z"},
		{name: "both differ", header: "x.y.z", params: "a.b.c", wantCode: jsonrpc.CodeCapabilityInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			if tt.header != "" {
				r.Header.Set(proxy.HeaderCapabilityToken, tt.header)
			}
			got, e := presentedToken(r, tt.params)
			if got != tt.want || code(e) != tt.wantCode {
				t.Errorf("presentedToken = %q, %v; want %q, code %d", got, e, tt.want, tt.wantCode)
			}
		})
	}
}
