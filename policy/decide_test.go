package policy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
)

var (
	noon  = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	night = time.Date(2025, 1, 9, 3, 0, 0, 0, time.UTC)

	intern     = policy.Principal{ID: "user:ivy@example.com", Claims: map[string]any{"employment": "intern"}}
	staff      = policy.Principal{ID: "user:sam@example.com", Claims: map[string]any{"employment": "staff"}}
	contractor = policy.Principal{ID: "user:con@example.com", Claims: map[string]any{"employment": "contractor", "clearance": "high"}}
	auditor    = policy.Principal{ID: "user:aud@example.com", Issuer: "https://idp.example.com", Groups: []string{"auditors"}}
	support    = policy.Principal{ID: "user:sup@example.com", Groups: []string{"support"}}
)

func reports(filter map[string]string) *policy.ResourceQuery {
	return &policy.ResourceQuery{Collection: "reports", Filter: filter}
}

// TestDecideGolden decides a table of requests against
// testdata/decide/policy.yaml and compares each Decision, as JSON, with
// testdata/decide/<case>.golden.
func TestDecideGolden(t *testing.T) {
	p := mustLoad(t, "testdata/decide/policy.yaml")
	q1 := map[string]string{"quarter": "2025-Q1"}
	tests := []struct {
		name string
		in   policy.Input
	}{
		{"intern_q1_with_purpose", policy.Input{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Resource: reports(q1), Purpose: "Quarterly summary", Now: noon}},
		{"intern_no_filter_excludes_q2", policy.Input{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Purpose: "Quarterly summary", Now: noon}},
		{"intern_q2_denied", policy.Input{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Resource: reports(map[string]string{"quarter": "2025-Q2"}), Purpose: "Quarterly summary", Now: noon}},
		{"intern_q3_outside_rule", policy.Input{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Resource: reports(map[string]string{"quarter": "2025-Q3"}), Purpose: "Quarterly summary", Now: noon}},
		{"intern_without_purpose", policy.Input{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Resource: reports(q1), Now: noon}},
		{"intern_short_purpose", policy.Input{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Resource: reports(q1), Purpose: "x", Now: noon}},
		{"staff_write_at_night_loses_delete", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read", "documents:write"}, Now: night}},
		{"staff_narrows_operations", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:write", "documents:read"}, Operations: []string{"update", "retrieve", "fly"}, Purpose: "fix typos", Now: noon}},
		{"staff_write_without_read", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:write"}, Now: noon}},
		{"staff_expiry_capped", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read"}, Expires: noon.Add(48 * time.Hour), Now: noon}},
		{"staff_expiry_kept", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read"}, Expires: noon.Add(10 * time.Minute), Now: noon}},
		{"expiry_in_the_past", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read"}, Expires: noon.Add(-time.Second), Now: noon}},
		{"expiry_within_the_second", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read"}, Expires: noon.Add(999 * time.Millisecond), Now: noon.Add(time.Millisecond)}},
		{"auditor_star_grant", policy.Input{Principal: auditor, Agent: "documents", Grants: []string{"documents:admin"}, Now: noon}},
		{"auditor_wrong_issuer", policy.Input{Principal: policy.Principal{ID: auditor.ID, Issuer: "https://evil.example.com", Groups: auditor.Groups}, Agent: "documents", Grants: []string{"documents:admin"}, Now: noon}},
		{"contractor_condition_error_fails_closed", policy.Input{Principal: contractor, Agent: "documents", Grants: []string{"documents:read"}, Now: noon}},
		{"unknown_agent", policy.Input{Principal: staff, Agent: "payroll", Grants: []string{"payroll:read"}, Now: noon}},
		{"unknown_grant", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:erase"}, Now: noon}},
		{"no_grants", policy.Input{Principal: staff, Agent: "documents", Now: noon}},
		{"zero_now", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read"}}},
		{"duplicate_grants", policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read", "documents:read"}, Now: noon}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Decide(context.Background(), tc.in)
			out, err := json.MarshalIndent(d, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "testdata/decide/"+tc.name+".golden", append(out, '\n'))
			if d.Allow != (len(d.Grants) > 0) {
				t.Errorf("Allow = %t with %d grants", d.Allow, len(d.Grants))
			}
			if !d.Allow && len(d.Reasons) == 0 {
				t.Error("a denial without a reason")
			}
		})
	}
}

// TestDecideA2EGolden covers A2E decisions.
func TestDecideA2EGolden(t *testing.T) {
	p := mustLoad(t, "testdata/decide/policy.yaml")
	tests := []struct {
		name string
		in   policy.A2EInput
	}{
		{"a2e_staff_all_but_proc", policy.A2EInput{Principal: staff, Host: "sandbox", Capabilities: []string{"tools", "proc", "memory", "teleport", "tools"}, Now: noon}},
		{"a2e_intern_nothing", policy.A2EInput{Principal: intern, Host: "lab", Capabilities: []string{"tools"}, Now: noon}},
		{"a2e_unknown_host", policy.A2EInput{Principal: staff, Host: "mars", Capabilities: []string{"tools"}, Now: noon}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := json.MarshalIndent(p.DecideA2E(context.Background(), tc.in), "", "  ")
			golden(t, "testdata/decide/"+tc.name+".golden", append(out, '\n'))
		})
	}
}

// TestDecideAmbient covers the ambient (migration) path.
func TestDecideAmbient(t *testing.T) {
	p := mustLoad(t, "testdata/decide/policy.yaml")
	tests := []struct {
		name      string
		in        policy.AmbientInput
		wantAllow bool
		wantRule  string
	}{
		{"support looks up", policy.AmbientInput{Principal: support, Agent: "crm", Skill: "lookup_customer", Method: "message/send", Now: noon}, true, "crm-support"},
		{"deny wins over allow", policy.AmbientInput{Principal: support, Agent: "crm", Skill: "delete_customer", Method: "message/send", Now: noon}, false, "crm-no-deletes"},
		{"other method", policy.AmbientInput{Principal: support, Agent: "crm", Skill: "lookup_customer", Method: "tasks/get", Now: noon}, false, ""},
		{"skill not listed", policy.AmbientInput{Principal: support, Agent: "crm", Skill: "update_customer", Method: "message/send", Now: noon}, false, ""},
		{"other principal", policy.AmbientInput{Principal: staff, Agent: "crm", Skill: "lookup_customer", Method: "message/send", Now: noon}, false, ""},
		{"capability-aware agent", policy.AmbientInput{Principal: support, Agent: "documents", Skill: "retrieve_document", Method: "message/send", Now: noon}, false, ""},
		{"unknown agent", policy.AmbientInput{Principal: support, Agent: "erp", Method: "message/send", Now: noon}, false, ""},
		{"no clock", policy.AmbientInput{Principal: support, Agent: "crm", Skill: "lookup_customer", Method: "message/send"}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := p.DecideAmbient(context.Background(), tc.in)
			if d.Allow != tc.wantAllow {
				t.Errorf("Allow = %t, want %t: %+v", d.Allow, tc.wantAllow, d.Reasons)
			}
			if tc.wantRule != "" && (len(d.Matched) != 1 || d.Matched[0].ID != tc.wantRule) {
				t.Errorf("Matched = %+v, want %s", d.Matched, tc.wantRule)
			}
			if len(d.Reasons) == 0 {
				t.Error("no reason")
			}
		})
	}
}

// TestDecideCanceled checks that a canceled context denies, with a reason.
func TestDecideCanceled(t *testing.T) {
	p := mustLoad(t, "testdata/decide/policy.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := p.Decide(ctx, policy.Input{Principal: staff, Agent: "documents", Grants: []string{"documents:read"}, Now: noon})
	if d.Allow || len(d.Reasons) != 1 || d.Reasons[0].Part != policy.PartContext {
		t.Errorf("decision = %+v", d)
	}
	a := p.DecideA2E(ctx, policy.A2EInput{Principal: staff, Host: "lab", Capabilities: []string{"tools"}, Now: noon})
	if len(a.Allowed) != 0 {
		t.Errorf("A2E allowed %v under a canceled context", a.Allowed)
	}
}
