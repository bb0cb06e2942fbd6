package documents_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

func invoke(skill string, args map[string]any) map[string]any {
	return map[string]any{"skill": skill, "arguments": args, "capabilityId": "cap_7f3a9b"}
}

var reportIDs = []string{"reports/q1-financial", "reports/q1-sales", "reports/q2-financial"}

func TestSkillInvoke(t *testing.T) {
	tests := []struct {
		name       string
		params     any
		header     http.Header
		wantCode   int
		wantReason string
		want       string // golden-free expected result, compact JSON
	}{
		{name: "retrieve", params: invoke("retrieve_document", map[string]any{"resourceId": "reports/q1-financial"}),
			want: `{"content":"Q1 2025 revenue grew 12% year over year to 4.2M USD while operating costs stayed flat.\nGross margin: 61%, up two points on lower hosting costs.\nOperating expenses: 2.1M USD, in line with plan.\nCash position at quarter end: 9.8M USD.","title":"Q1 Financial Summary"}`},
		{name: "retrieve unknown resource", params: invoke("retrieve_document", map[string]any{"resourceId": "reports/q9"}),
			wantCode: -32602, wantReason: "unknown_resource"},
		{name: "retrieve path traversal", params: invoke("retrieve_document", map[string]any{"resourceId": "reports/../hr/salaries-2025"}),
			wantCode: -32602, wantReason: "unknown_resource"},
		{name: "retrieve case variant", params: invoke("retrieve_document", map[string]any{"resourceId": "Reports/Q1-Financial"}),
			wantCode: -32602, wantReason: "unknown_resource"},
		{name: "retrieve unrewritten handle", params: invoke("retrieve_document", map[string]any{"resourceHandle": "rh_001"}),
			wantCode: -32602, wantReason: "unresolved_handle"},
		{name: "handle next to id is refused", params: invoke("retrieve_document", map[string]any{"resourceHandle": "rh_001", "resourceId": "reports/q1-sales"}),
			wantCode: -32602, wantReason: "unresolved_handle"},
		{name: "retrieve without id", params: invoke("retrieve_document", map[string]any{}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "arguments not an object", params: map[string]any{"skill": "retrieve_document", "arguments": "reports/q1-sales"},
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "unknown skill", params: invoke("drop_tables", map[string]any{"resourceId": "reports/q1-sales"}),
			wantCode: -32601, wantReason: "unknown_skill"},
		{name: "skill name is exact", params: invoke("Retrieve_Document", map[string]any{"resourceId": "reports/q1-sales"}),
			wantCode: -32601, wantReason: "unknown_skill"},
		{name: "search within ids", params: invoke("search_documents", map[string]any{"query": "REVENUE", "resourceIds": reportIDs}),
			want: `{"documents":[{"title":"Q1 Financial Summary"},{"title":"Q2 Financial Summary"}],"query":"REVENUE"}`},
		{name: "search never leaves its ids", params: invoke("search_documents", map[string]any{"query": "salary", "resourceIds": reportIDs}),
			want: `{"documents":[],"query":"salary"}`},
		{name: "search without ids", params: invoke("search_documents", map[string]any{"query": "salary"}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "search without query", params: invoke("search_documents", map[string]any{"resourceIds": reportIDs}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "list", params: invoke("list_documents", map[string]any{"resourceIds": []string{"reports/q1-sales", "reports/q1-financial", "reports/q1-sales"}}),
			want: `{"documents":[{"title":"Q1 Financial Summary"},{"title":"Q1 Sales Report"}]}`},
		{name: "list skips ids that name nothing", params: invoke("list_documents", map[string]any{"resourceIds": []string{"reports/q1-sales", "nope"}}),
			want: `{"documents":[{"title":"Q1 Sales Report"}]}`},
		{name: "list empty ids", params: invoke("list_documents", map[string]any{"resourceIds": []string{}}),
			want: `{"documents":[]}`},
		{name: "list without ids never lists everything", params: invoke("list_documents", map[string]any{}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "list null ids", params: invoke("list_documents", map[string]any{"resourceIds": nil}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "list empty id", params: invoke("list_documents", map[string]any{"resourceIds": []string{""}}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "update without content", params: invoke("update_document", map[string]any{"resourceId": "reports/q1-sales"}),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "update unknown", params: invoke("update_document", map[string]any{"resourceId": "reports/q9", "content": "x"}),
			wantCode: -32602, wantReason: "unknown_resource"},
		{name: "delete unknown", params: invoke("delete_document", map[string]any{"resourceId": "hr/salaries-2024"}),
			wantCode: -32602, wantReason: "unknown_resource"},
		{name: "operation header allows", params: invoke("retrieve_document", map[string]any{"resourceId": "reports/q1-sales"}),
			header: http.Header{"A2a-Capability-Operations": {"search, retrieve"}},
			want:   `{"content":"Q1 2025 sales closed 148 new accounts, 9% above target, led by the EMEA team.\nEMEA: 61 accounts. Americas: 54 accounts. APAC: 33 accounts.\nAverage deal size rose to 28,400 USD.\nPipeline for Q2 stands at 6.3M USD.","title":"Q1 Sales Report"}`},
		{name: "operation header wildcard", params: invoke("list_documents", map[string]any{"resourceIds": []string{}}),
			header: http.Header{"A2a-Capability-Operations": {"*"}}, want: `{"documents":[]}`},
		{name: "operation header refuses", params: invoke("delete_document", map[string]any{"resourceId": "reports/q1-sales"}),
			header:   http.Header{"A2a-Capability-Operations": {"retrieve,search,list"}},
			wantCode: -32044, wantReason: "operation_not_permitted"},
		{name: "empty operation header refuses", params: invoke("retrieve_document", map[string]any{"resourceId": "reports/q1-sales"}),
			header:   http.Header{"A2a-Capability-Operations": {""}},
			wantCode: -32044, wantReason: "operation_not_permitted"},
		{name: "operation prefix is not the operation", params: invoke("retrieve_document", map[string]any{"resourceId": "reports/q1-sales"}),
			header:   http.Header{"A2a-Capability-Operations": {"retrieve_all"}},
			wantCode: -32044, wantReason: "operation_not_permitted"},
	}
	_, srv := newServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := call(t, srv.URL, documents.MethodSkillInvoke, tt.params, tt.header)
			checkRPC(t, resp, tt.wantCode, tt.wantReason, tt.want)
		})
	}
}

// A gateway that checked one spelling must never see the agent act on
// another: encoding/json matches names without case and lets the last
// duplicate win, so the agent refuses both.
func TestSkillInvokeRefusesSmuggledMembers(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"case-variant resourceId", `{"skill":"retrieve_document","arguments":{"resourceId":"reports/q1-sales","ResourceID":"hr/salaries-2025"}}`},
		{"duplicate resourceId", `{"skill":"retrieve_document","arguments":{"resourceId":"reports/q1-sales","resourceId":"hr/salaries-2025"}}`},
		{"unicode fold of resourceIds", `{"skill":"list_documents","arguments":{"resourceIds":[],"reſourceIds":["hr/salaries-2025"]}}`},
		{"case-variant handle", `{"skill":"retrieve_document","arguments":{"resourceId":"reports/q1-sales","ResourceHandle":"rh_1"}}`},
		{"case-variant skill", `{"skill":"retrieve_document","Skill":"delete_document","arguments":{"resourceId":"reports/q1-sales"}}`},
		{"duplicate arguments", `{"skill":"retrieve_document","arguments":{"resourceId":"reports/q1-sales"},"arguments":{"resourceId":"hr/salaries-2025"}}`},
	}
	_, srv := newServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":` + tt.body + `}`
			resp := decode(t, post(t, srv.URL, body, nil))
			if resp.Error == nil || resp.Error.Code != -32602 {
				t.Fatalf("got error %+v result %s, want -32602", resp.Error, resp.Result)
			}
		})
	}
	resp := decode(t, post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","Method":"a2a/skill/invoke","params":{}}`, nil))
	if resp.Error == nil || resp.Error.Code != -32600 {
		t.Errorf("case-variant envelope member: got %+v, want -32600", resp.Error)
	}
}

func checkRPC(t *testing.T, resp rpcResp, wantCode int, wantReason, want string) {
	t.Helper()
	if wantCode != 0 {
		if resp.Error == nil || resp.Error.Code != wantCode || resp.reason() != wantReason {
			t.Fatalf("got error %+v result %s, want code %d reason %q", resp.Error, resp.Result, wantCode, wantReason)
		}
		if resp.Error.Message == "" {
			t.Error("error message is empty")
		}
		return
	}
	if resp.Error != nil {
		t.Fatalf("unexpected error %+v", resp.Error)
	}
	var got any
	if err := json.Unmarshal(resp.Result, &got); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(got)
	if string(compact) != want {
		t.Errorf("result\n got %s\nwant %s", compact, want)
	}
}

func TestUpdateThenDelete(t *testing.T) {
	a, srv := newServer(t)
	id := map[string]any{"resourceId": "reports/q2-financial"}
	resp := call(t, srv.URL, documents.MethodSkillInvoke, invoke("update_document",
		map[string]any{"resourceId": "reports/q2-financial", "content": "Revised.\nSecond line."}), nil)
	checkRPC(t, resp, 0, "", `{"content":"Revised.\nSecond line.","title":"Q2 Financial Summary"}`)

	resp = call(t, srv.URL, documents.MethodSkillInvoke, invoke("retrieve_document", id), nil)
	checkRPC(t, resp, 0, "", `{"content":"Revised.\nSecond line.","title":"Q2 Financial Summary"}`)
	for _, d := range a.Documents() {
		if d.ID == "reports/q2-financial" && (d.FirstLine() != "Revised." || !d.UpdatedAt.Equal(fixedNow())) {
			t.Errorf("stored document = %+v, want updated at the injected clock", d)
		}
	}

	resp = call(t, srv.URL, documents.MethodSkillInvoke, invoke("delete_document", id), nil)
	checkRPC(t, resp, 0, "", `{"deleted":true}`)
	resp = call(t, srv.URL, documents.MethodSkillInvoke, invoke("retrieve_document", id), nil)
	checkRPC(t, resp, -32602, "unknown_resource", "")
	if n := len(a.Documents()); n != 3 {
		t.Errorf("%d documents left, want 3", n)
	}
}

// Agents are independent: one agent's update never shows in another.
func TestAgentsShareNoState(t *testing.T) {
	_, srv1 := newServer(t)
	a2, _ := newServer(t)
	call(t, srv1.URL, documents.MethodSkillInvoke, invoke("delete_document", map[string]any{"resourceId": "hr/salaries-2025"}), nil)
	if n := len(a2.Documents()); n != 4 {
		t.Errorf("second agent has %d documents, want 4", n)
	}
	if n := len(documents.SeedDocuments()); n != 4 {
		t.Errorf("seed has %d documents, want 4", n)
	}
}

func TestSkillOperation(t *testing.T) {
	for skill, want := range map[string]string{
		"retrieve_document": "retrieve", "search_documents": "search", "list_documents": "list",
		"update_document": "update", "delete_document": "delete",
	} {
		if got, ok := documents.SkillOperation(skill); !ok || got != want {
			t.Errorf("SkillOperation(%q) = %q, %v; want %q", skill, got, ok, want)
		}
	}
	if _, ok := documents.SkillOperation("create_document"); ok {
		t.Error("create_document is not a skill of this agent")
	}
}
