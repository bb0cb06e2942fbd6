package documents_test

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name       string
		params     any
		wantIDs    []string
		wantCode   int
		wantReason string
	}{
		{name: "reports in Q1", params: map[string]any{"principal": "user:alice@example.com", "collection": "reports", "filter": map[string]any{"quarter": "2025-Q1"}},
			wantIDs: []string{"reports/q1-financial", "reports/q1-sales"}},
		{name: "reports without filter", params: map[string]any{"principal": "user:alice@example.com", "collection": "reports"},
			wantIDs: []string{"reports/q1-financial", "reports/q1-sales", "reports/q2-financial"}},
		{name: "all collections", params: map[string]any{"principal": "user:carol@example.com"},
			wantIDs: []string{"hr/salaries-2025", "reports/q1-financial", "reports/q1-sales", "reports/q2-financial"}},
		{name: "all collections filtered", params: map[string]any{"collection": "", "filter": map[string]any{"quarter": "2025-Q2"}},
			wantIDs: []string{"reports/q2-financial"}},
		{name: "hr", params: map[string]any{"collection": "hr"}, wantIDs: []string{"hr/salaries-2025"}},
		{name: "missing attribute never matches", params: map[string]any{"collection": "hr", "filter": map[string]any{"quarter": ""}},
			wantIDs: []string{}},
		{name: "filter is exact", params: map[string]any{"collection": "reports", "filter": map[string]any{"quarter": "2025-q1"}},
			wantIDs: []string{}},
		{name: "filter is not a prefix", params: map[string]any{"collection": "reports", "filter": map[string]any{"quarter": "2025"}},
			wantIDs: []string{}},
		{name: "unknown collection", params: map[string]any{"collection": "legal"}, wantIDs: []string{}},
		{name: "collection is exact", params: map[string]any{"collection": "Reports"}, wantIDs: []string{}},
		{name: "no params", params: nil,
			wantIDs: []string{"hr/salaries-2025", "reports/q1-financial", "reports/q1-sales", "reports/q2-financial"}},
		{name: "non-string filter value", params: map[string]any{"filter": map[string]any{"quarter": 2025}},
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "duplicate filter key", params: json.RawMessage(`{"filter":{"quarter":"2025-Q1","quarter":"2025-Q2"}}`),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "case-variant filter key", params: json.RawMessage(`{"filter":{"quarter":"2025-Q1","Quarter":"2025-Q2"}}`),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "case-variant collection", params: json.RawMessage(`{"collection":"reports","Collection":"hr"}`),
			wantCode: -32602, wantReason: "invalid_params"},
		{name: "params not an object", params: []string{"reports"}, wantCode: -32602, wantReason: "invalid_params"},
	}
	_, srv := newServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := call(t, srv.URL, documents.MethodResourcesResolve, tt.params, nil)
			if tt.wantCode != 0 {
				checkRPC(t, resp, tt.wantCode, tt.wantReason, "")
				return
			}
			var res documents.ResolveResult
			if resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil {
				t.Fatalf("error %+v result %s", resp.Error, resp.Result)
			}
			if res.Resources == nil {
				t.Fatal(`"resources" must be an array, never null`)
			}
			got := make([]string, len(res.Resources))
			for i, r := range res.Resources {
				got[i] = r.ID
			}
			if string(indent(t, got)) != string(indent(t, tt.wantIDs)) {
				t.Errorf("ids = %v, want %v", got, tt.wantIDs)
			}
		})
	}
}

// The wire shape of a resolve answer is pinned in a golden file.
func TestResolveGolden(t *testing.T) {
	_, srv := newServer(t)
	resp := call(t, srv.URL, documents.MethodResourcesResolve, map[string]any{
		"principal": "user:alice@example.com", "collection": "reports", "filter": map[string]any{"quarter": "2025-Q1"},
	}, nil)
	var v any
	if err := json.Unmarshal(resp.Result, &v); err != nil {
		t.Fatal(err)
	}
	golden(t, "resolve_reports_q1.golden.json", indent(t, v))

	resp = call(t, srv.URL, documents.MethodResourcesResolve, map[string]any{}, nil)
	if err := json.Unmarshal(resp.Result, &v); err != nil {
		t.Fatal(err)
	}
	golden(t, "resolve_all.golden.json", indent(t, v))
}
