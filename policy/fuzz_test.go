package policy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
)

// FuzzLoad feeds arbitrary documents to the loader. Load must never panic,
// must return either a policy or an error (never both), every error problem
// must carry a position, and a loaded policy must decide without panicking.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.yaml")
	seeds = append(seeds, quickstartPolicy)
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("version: 1\nrules:\n  - id: r\n    principals: {any: true}\n    agents: ['*']\n    grants: ['*']\n    operations: [list]\n"))
	cat := testCatalog()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, problems, err := policy.Load(context.Background(), data, "fuzz.yaml", cat)
		if (p == nil) == (err == nil) {
			t.Fatalf("policy %v with error %v", p != nil, err)
		}
		if err != nil && !errors.Is(err, policy.ErrInvalidPolicy) {
			t.Fatalf("error does not wrap ErrInvalidPolicy: %v", err)
		}
		for _, pr := range problems {
			if !strings.HasPrefix(pr.Pos, "fuzz.yaml") || pr.Err == nil {
				t.Fatalf("problem without position or sentinel: %+v", pr)
			}
		}
		if p == nil {
			return
		}
		for _, who := range []policy.Principal{staff, intern, auditor, support, {ID: "anon"}} {
			in := policy.Input{Principal: who, Agent: "documents", Grants: []string{"documents:read", "documents:write", "documents:admin"},
				Now: noon, Resource: reports(map[string]string{"quarter": "2025-Q1"})}
			d := p.Decide(context.Background(), in)
			if d.Allow != (len(d.Grants) > 0) {
				t.Fatalf("Allow %t with %d grants", d.Allow, len(d.Grants))
			}
			for _, gd := range d.Grants {
				if len(gd.Operations) == 0 || !gd.Expires.After(noon) {
					t.Fatalf("empty or expired grant issued: %+v", gd)
				}
			}
			_ = p.Explain(context.Background(), in)
			_ = p.DecideA2E(context.Background(), policy.A2EInput{Principal: who, Host: "lab", Capabilities: policy.A2ECapabilityNames(), Now: noon})
			_ = p.DecideAmbient(context.Background(), policy.AmbientInput{Principal: who, Agent: "crm", Skill: "lookup_customer", Method: "message/send", Now: noon})
		}
	})
}

// FuzzDecide feeds arbitrary request fields to Decide on the decision
// fixture policy: it must never panic and never issue outside the grant.
func FuzzDecide(f *testing.F) {
	p := mustLoad(f, "testdata/decide/policy.yaml")
	f.Add("staff", "documents:read", "retrieve", "reports", "quarter", "2025-Q1", "purpose text")
	f.Add("intern", "documents:write", "*", "", "", "", "")
	f.Fuzz(func(t *testing.T, employment, grant, op, coll, key, val, purpose string) {
		in := policy.Input{Principal: policy.Principal{ID: "fuzz", Claims: map[string]any{"employment": employment}},
			Agent: "documents", Grants: []string{grant, "documents:read"}, Operations: []string{op},
			Resource: &policy.ResourceQuery{Collection: coll, Filter: map[string]string{key: val}}, Purpose: purpose, Now: noon}
		d := p.Decide(context.Background(), in)
		cat := testCatalog()
		for _, gd := range d.Grants {
			def := cat.Agents["documents"].Grants[gd.Grant]
			for _, o := range gd.Operations {
				if o != op || (def.Operations[0] != "*" && !strings.Contains(strings.Join(def.Operations, ","), o)) {
					t.Fatalf("issued %q outside request %q or grant %v", o, op, def.Operations)
				}
			}
		}
	})
}
