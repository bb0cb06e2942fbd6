package a2afront

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// wrongValue is a JSON value of another kind than a member of type t
// takes.
func wrongValue(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.String {
		return `7`
	}
	return `"x"`
}

// TestParamsRefusalsNameTheMember: for every method whose params the
// front decodes, a member of the wrong type and an unknown member are
// -32602 with data.member naming the member's path, and no Go type, Go
// struct field or encoding/json wording reaches the caller.
func TestParamsRefusalsNameTheMember(t *testing.T) {
	methods := []struct {
		method string
		params any
	}{
		{"a2a/capabilities/request", sep.RequestParams{}},
		{"a2a/capabilities/attenuate", sep.AttenuateParams{}},
		{"a2a/capabilities/revoke", sep.RevokeParams{}},
		{"a2a/skill/invoke", sep.InvokeParams{}},
		{"a2a/capabilities/approval/status", sep.ApprovalStatusParams{}},
	}
	fx := newFixture(t)
	for _, m := range methods {
		typ := reflect.TypeOf(m.params)
		cases := map[string]string{"params.purpos": `{"purpos":"x"}`}
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			cases["params."+name] = `{"` + name + `":` + wrongValue(typ.Field(i).Type) + `}`
		}
		if m.method == "a2a/capabilities/request" {
			cases["params.grants[1]"] = `{"grants":["documents:read",{}]}`
			cases["params.resourceQuery.filter.team"] = `{"grants":["documents:read"],"resourceQuery":{"filter":{"team":1}}}`
		}
		for member, params := range cases {
			t.Run(m.method+" "+params, func(t *testing.T) {
				out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
					`{"jsonrpc":"2.0","id":1,"method":"`+m.method+`","params":`+params+`}`))
				if out.resp == nil || out.resp.Error == nil {
					t.Fatalf("accepted: %+v", out.resp)
				}
				wire, _ := json.Marshal(out.resp.Error)
				data, _ := out.resp.Error.Data.(map[string]any)
				if out.resp.Error.Code != jsonrpc.CodeInvalidParams || data["member"] != member {
					t.Errorf("%s: want -32602 naming %s", wire, member)
				}
				for _, leak := range []string{"Go struct", "Go value", "json:", "Params", "sep."} {
					if strings.Contains(string(wire), leak) {
						t.Errorf("%s: says %q", wire, leak)
					}
				}
			})
		}
	}
}

// TestFrontRefusalsNameTheMember: the front's own -32602 refusals of a
// send's extension members and of a follow-up's task name the member at
// fault in data.member, wherever the caller put it.
func TestFrontRefusalsNameTheMember(t *testing.T) {
	msg := `"message":{"messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}`
	ext := `"metadata":{"` + agentcard.ExtensionURI + `":`
	tests := []struct {
		method, params, member string
	}{
		{"tasks/get", `{"id":7}`, "params.id"},
		{"tasks/get", `{"name":"task-1"}`, "params.name"},
		{"message/send", `{` + msg + `,"CapabilityId":"cap_x"}`, "params.CapabilityId"},
		{"message/send", `{` + msg + `,` + ext + `{"attenuations":{}}}}`, `params.metadata["` + agentcard.ExtensionURI + `"].attenuations`},
		{"message/send", `{` + msg + `,"capabilities":"cap_x"}`, "params.capabilities"},
	}
	fx := newFixture(t)
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
				`{"jsonrpc":"2.0","id":1,"method":"`+tt.method+`","params":`+tt.params+`}`))
			if out.resp == nil || out.resp.Error == nil {
				t.Fatalf("accepted: %+v", out)
			}
			wire, _ := json.Marshal(out.resp.Error)
			data, _ := out.resp.Error.Data.(map[string]any)
			if out.resp.Error.Code != jsonrpc.CodeInvalidParams || data["member"] != tt.member {
				t.Errorf("%s: want -32602 naming %s", wire, tt.member)
			}
		})
	}
}
