package a2afront

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

func TestExtensionData(t *testing.T) {
	uri := agentcard.ExtensionURI
	md := func(body string) string { return `"metadata":{"` + uri + `":` + body + `}` }
	tests := []struct {
		name      string
		params    string
		wantID    string
		wantWhere string
		wantCode  int
	}{
		{name: "nothing", params: `{"message":{"parts":[]}}`},
		{name: "top level", params: `{"capabilityId":"cap_1"}`, wantID: "cap_1", wantWhere: inParams},
		{name: "params metadata", params: `{` + md(`{"capabilityId":"cap_1"}`) + `}`, wantID: "cap_1", wantWhere: inParamsMetadata},
		{name: "message metadata", params: `{"message":{` + md(`{"capabilityId":"cap_1"}`) + `}}`, wantID: "cap_1", wantWhere: inMessageMetadata},
		{name: "same value twice", params: `{"capabilityId":"cap_1",` + md(`{"capabilityId": "cap_1"}`) + `}`, wantID: "cap_1", wantWhere: inParams},
		{name: "two places disagree", params: `{"capabilityId":"cap_1","message":{` + md(`{"capabilityId":"cap_2"}`) + `}}`, wantCode: jsonrpc.CodeInvalidParams},
		{name: "case variant in metadata", params: `{` + md(`{"CapabilityId":"cap_2"}`) + `}`, wantCode: jsonrpc.CodeInvalidParams},
		{name: "case variant of metadata", params: `{"message":{"Metadata":{"` + uri + `":{"capabilityId":"cap_2"}}}}`, wantCode: jsonrpc.CodeInvalidParams},
		{name: "case variant of the URI", params: `{"metadata":{"` + strings.ToUpper(uri) + `":{"capabilityId":"cap_2"}}}`, wantCode: jsonrpc.CodeInvalidParams},
		{name: "metadata not an object", params: `{"metadata":[1]}`, wantCode: jsonrpc.CodeInvalidParams},
		{name: "extension entry not an object", params: `{` + md(`"cap_1"`) + `}`, wantCode: jsonrpc.CodeInvalidParams},
		{name: "other extensions ignored", params: `{"metadata":{"https://example.com/other":{"capabilityId":"x"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var params map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.params), &params); err != nil {
				t.Fatal(err)
			}
			before := len(params)
			x, e := extensionData(params)
			if len(params) != before {
				t.Fatalf("extensionData changed params: %d members, had %d", len(params), before)
			}
			if code(e) != tt.wantCode {
				t.Fatalf("code %d (%v), want %d", code(e), e, tt.wantCode)
			}
			if e != nil {
				return
			}
			id, e := x.String(memberCapabilityID)
			if e != nil || id != tt.wantID || x.Where[memberCapabilityID] != tt.wantWhere {
				t.Errorf("capabilityId %q in %q (%v), want %q in %q", id, x.Where[memberCapabilityID], e, tt.wantID, tt.wantWhere)
			}
		})
	}
}
