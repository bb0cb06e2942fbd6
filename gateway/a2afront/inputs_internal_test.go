package a2afront

import (
	"context"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestBadInputHasItsOwnCode checks that oversized members and impossible
// expiries are refused with invalid_params or the specific capability
// code and a reason, and that the upstream saw nothing of them.
func TestBadInputHasItsOwnCode(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		name, method, params string
		wantCode             int
		wantReason           string
	}{
		{"purpose of 64 KiB", jsonrpc.MethodCapabilitiesRequest,
			`{"grants":["documents:read"],"purpose":"$BIG"}`, jsonrpc.CodeInvalidParams, jsonrpc.ReasonInvalidParams},
		{"purpose one byte over", jsonrpc.MethodCapabilitiesRequest,
			`{"grants":["documents:read"],"purpose":"` + strings.Repeat("p", 1025) + `"}`, jsonrpc.CodeInvalidParams, jsonrpc.ReasonInvalidParams},
		{"expiry within the current second", jsonrpc.MethodCapabilitiesRequest,
			`{"grants":["documents:read"],"expires":"$SOON"}`, jsonrpc.CodeGrantDenied, jsonrpc.ReasonGrantDenied},
		{"attenuation expiring in the past", jsonrpc.MethodCapabilitiesAttenuate,
			`{"capabilityId":"$CID","constraints":{"expires":"2001-01-01T00:00:00Z"}}`, jsonrpc.CodeAttenuationNotPermitted, jsonrpc.ReasonAttenuationNotPermitted},
		{"attenuation expiring within the current second", jsonrpc.MethodCapabilitiesAttenuate,
			`{"capabilityId":"$CID","constraints":{"expires":"$SOON"}}`, jsonrpc.CodeAttenuationNotPermitted, jsonrpc.ReasonAttenuationNotPermitted},
		{"delegation expiring in the past", jsonrpc.MethodSendMessage,
			`{"message":{},"capabilities":["$CID"],"attenuations":{"$CID":{"expires":"2001-01-01T00:00:00Z"}}}`, jsonrpc.CodeAttenuationNotPermitted, jsonrpc.ReasonAttenuationNotPermitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			capb := fx.issue(t)
			before := len(fx.upstream.calls(""))
			params := expandFuzzParams(tt.params, capb.ID, capb.Token, fx.now)
			out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
				`{"jsonrpc":"2.0","id":1,"method":"`+tt.method+`","params":`+params+`}`))
			if out.resp == nil || out.resp.Error == nil {
				t.Fatalf("not refused: %+v", out)
			}
			if e := out.resp.Error; e.Code != tt.wantCode || e.Reason() != tt.wantReason {
				t.Fatalf("got %d %q (%s), want %d %q", e.Code, e.Reason(), e.Message, tt.wantCode, tt.wantReason)
			}
			for _, r := range fx.upstream.calls("")[before:] {
				if r.method != "" { // the agent card fetch carries no method
					t.Errorf("upstream saw %s", r.method)
				}
			}
		})
	}
}
