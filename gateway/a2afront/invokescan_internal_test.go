package a2afront

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// invocationSeeds are invocation params that the fast path must read as
// decoding does, or hand over to it.
var invocationSeeds = []string{
	`{"skill":"s","capabilityId":"cap_1","arguments":{"resourceHandle":"rh_1"}}`,
	`{"skill":"s","capabilityToken":"a.b.c","arguments":{}}`,
	`{"skill":"s","capabilityId":"cap_1","capabilityId":"cap_2"}`,
	`{"skill":"s","capabilityID":"cap_1"}`,
	`{"skill":"s","Skill":"t"}`,
	`{"skill":"s","capabilityId":null}`,
	`{"skill":"s","capabilityId":7}`,
	`{"skill":"s","capabilityId":"c\u0061p"}`,
	`{"skill":"s","c\u0061pabilityId":"cap_1"}`,
	`{"skill":"s","ſkill":"t"}`,
	`{"skill":"s","capabilities":[]}`,
	`{"skill":"s","attenuations":[]}`,
	`{"skill":"s","metadata":{"https://github.com/a2aproject/A2A/sep/capability-negotiation":{"capabilityId":"cap_1"}}}`,
	`{"skill":"s","Metadata":{}}`,
	`{"skill":"s","message":{"metadata":{}}}`,
	`{"skill":"s","Message":{}}`,
	` { "skill" : "s" , "capabilityId" : "cap_1" } `,
	`{}`,
}

func TestPlainInvocationCapabilityMatchesDecoding(t *testing.T) {
	for _, params := range invocationSeeds {
		checkPlainInvocation(t, params)
	}
	for _, params := range invocationSeeds[:3] {
		if _, _, ok := plainInvocationCapability([]byte(params)); !ok {
			t.Errorf("%s: not read by the fast path", params)
		}
	}
}

func checkPlainInvocation(t *testing.T, params string) {
	t.Helper()
	id, token, ok := plainInvocationCapability([]byte(params))
	if !ok {
		return
	}
	c := &call{req: jsonrpc.Request{Params: json.RawMessage(params)}, http: httptest.NewRequest("POST", "/a2a/x", nil)}
	var p sep.InvokeParams
	wantToken, e := decodedInvocationCapability(c, &p)
	if e != nil || p.CapabilityID != id || p.CapabilityToken != token || wantToken != token {
		t.Errorf("%s: fast path %q %q; decoding %q %q %q, %+v", params, id, token, p.CapabilityID, p.CapabilityToken, wantToken, e)
	}
}

// FuzzPlainInvocationCapability: whatever the params, the fast path
// either hands over or reads exactly what decoding reads.
func FuzzPlainInvocationCapability(f *testing.F) {
	for _, s := range invocationSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(params), &m) != nil || m == nil {
			return
		}
		checkPlainInvocation(t, params)
	})
}
