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

// TestLoadGolden loads every testdata/load/*.yaml and compares the full
// problem list (errors and warnings, with positions) with its .golden file.
func TestLoadGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/load/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no load fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, problems, err := policy.Load(context.Background(), data, filepath.Base(f), testCatalog())
			var b strings.Builder
			for _, pr := range problems {
				b.WriteString(pr.Error() + "\n")
			}
			if err != nil && p != nil {
				t.Error("Load returned both a policy and an error")
			}
			if err == nil {
				b.WriteString("-- loaded, revision " + p.Revision() + "\n")
			}
			golden(t, strings.TrimSuffix(f, ".yaml")+".golden", []byte(b.String()))
		})
	}
}

// TestLoadTypos is the acceptance case: a typo'd field, an unknown grant and
// a bad CEL expression are each reported with line:col.
func TestLoadTypos(t *testing.T) {
	data, err := os.ReadFile("testdata/load/typos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = policy.Load(context.Background(), data, "typos.yaml", testCatalog())
	for _, want := range []struct {
		sentinel error
		text     string
	}{
		{policy.ErrUnknownField, `typos.yaml:7:5: rules[0].grnats: unknown field "grnats"`},
		{policy.ErrUnknownGrant, `typos.yaml:11:14: rules[1].grants[0]: agent "documents" has no grant "documents:export"`},
		{policy.ErrBadCondition, `typos.yaml:17:9: rules[2].conditions[0]: condition`},
	} {
		if !errors.Is(err, want.sentinel) {
			t.Errorf("error does not wrap %v", want.sentinel)
		}
		if err == nil || !strings.Contains(err.Error(), want.text) {
			t.Errorf("error lacks %q:\n%v", want.text, err)
		}
	}
	if !errors.Is(err, policy.ErrInvalidPolicy) {
		t.Errorf("error does not wrap ErrInvalidPolicy: %v", err)
	}
}

// TestLoadErrors checks that each kind of mistake is reported with its
// sentinel error, and that a broken policy is never returned.
func TestLoadErrors(t *testing.T) {
	const rule = "version: 1\nrules:\n  - id: r\n    principals: {groups: [g]}\n    agents: [documents]\n"
	tests := []struct {
		name    string
		yaml    string
		wantErr []error
	}{
		{"empty", "", []error{policy.ErrMissingField}},
		{"not a mapping", "- a\n- b\n", []error{policy.ErrFieldType}},
		{"two documents", "version: 1\n---\nversion: 1\n", []error{policy.ErrSyntax}},
		{"duplicate key", "version: 1\nversion: 1\n", []error{policy.ErrSyntax}},
		{"case-variant key", "version: 1\nVersion: 1\n", []error{policy.ErrUnknownField}},
		{"tab indentation", "version: 1\nrules:\n\t- id: x\n", []error{policy.ErrSyntax}},
		{"missing version", "rules: []\n", []error{policy.ErrVersion}},
		{"version 2", "version: 2\n", []error{policy.ErrVersion}},
		{"version as text", "version: one\n", []error{policy.ErrFieldType}},
		{"unknown top-level field", "version: 1\nrulez: []\n", []error{policy.ErrUnknownField}},
		{"unknown rule field", rule + "    grants: [documents:read]\n    effects: deny\n", []error{policy.ErrUnknownField}},
		{"unknown matcher field", "version: 1\nrules:\n  - id: r\n    principals: {group: [g]}\n    agents: [documents]\n    grants: [documents:read]\n", []error{policy.ErrUnknownField}},
		{"unknown agent", "version: 1\nrules:\n  - id: r\n    principals: {any: true}\n    agents: [docs]\n    grants: [documents:read]\n", []error{policy.ErrUnknownAgent}},
		{"unknown grant", rule + "    grants: [documents:erase]\n", []error{policy.ErrUnknownGrant}},
		{"operation outside grant", rule + "    grants: [documents:read]\n    operations: [delete]\n", []error{policy.ErrUnknownOperation}},
		{"wildcard operation", rule + "    grants: [documents:read]\n    operations: [\"*\"]\n", []error{policy.ErrUnknownOperation}},
		{"star grant needs operations", rule + "    grants: [documents:admin]\n", []error{policy.ErrMissingField}},
		{"bad CEL", rule + "    grants: [documents:read]\n    conditions: ['principal.id ==']\n", []error{policy.ErrBadCondition}},
		{"undeclared CEL name", rule + "    grants: [documents:read]\n    conditions: ['user.id == \"x\"']\n", []error{policy.ErrBadCondition}},
		{"CEL not bool", rule + "    grants: [documents:read]\n    conditions: ['principal.groups']\n", []error{policy.ErrConditionType}},
		{"CEL dyn claim not bool", rule + "    grants: [documents:read]\n    conditions: ['principal.claims.admin']\n", []error{policy.ErrConditionType}},
		{"CEL too long", rule + "    grants: [documents:read]\n    conditions: ['" + strings.Repeat("true && ", 300) + "true']\n", []error{policy.ErrBadCondition}},
		{"zero ttl", rule + "    grants: [documents:read]\n    max_ttl: 0s\n", []error{policy.ErrBadTTL}},
		{"negative ttl", rule + "    grants: [documents:read]\n    max_ttl: -1h\n", []error{policy.ErrBadTTL}},
		{"ttl without unit", rule + "    grants: [documents:read]\n    max_ttl: 3600\n", []error{policy.ErrBadTTL}},
		{"negative depth", rule + "    grants: [documents:read]\n    max_delegation_depth: -1\n", []error{policy.ErrBadDepth}},
		{"bad effect", rule + "    grants: [documents:read]\n    effect: Allow\n", []error{policy.ErrBadEffect}},
		{"duplicate ids", rule + "    grants: [documents:read]\n  - id: r\n    principals: {any: true}\n    agents: [documents]\n    grants: [documents:read]\n", []error{policy.ErrDuplicateRule}},
		{"no principals", "version: 1\nrules:\n  - id: r\n    agents: [documents]\n    grants: [documents:read]\n", []error{policy.ErrMissingField}},
		{"empty principals", "version: 1\nrules:\n  - id: r\n    principals: {}\n    agents: [documents]\n    grants: [documents:read]\n", []error{policy.ErrBadMatcher}},
		{"any plus groups", "version: 1\nrules:\n  - id: r\n    principals: {any: true, groups: [g]}\n    agents: [documents]\n    grants: [documents:read]\n", []error{policy.ErrBadMatcher}},
		{"deny with ttl", rule + "    grants: [documents:read]\n    effect: deny\n    max_ttl: 1h\n", []error{policy.ErrInvalidRule}},
		{"unknown host", "version: 1\na2e:\n  - id: a\n    principals: {any: true}\n    hosts: [mars]\n    capabilities: [tools]\n", []error{policy.ErrUnknownHost}},
		{"unknown capability", "version: 1\na2e:\n  - id: a\n    principals: {any: true}\n    hosts: [lab]\n    capabilities: [Tools]\n", []error{policy.ErrUnknownCapability}},
		{"ambient on capability-aware agent", "version: 1\nambient:\n  - id: a\n    principals: {any: true}\n    agents: [documents]\n    skills: [\"*\"]\n", []error{policy.ErrNotLegacy}},
		{"ambient unknown skill", "version: 1\nambient:\n  - id: a\n    principals: {any: true}\n    agents: [crm]\n    skills: [drop_table]\n", []error{policy.ErrUnknownSkill}},
		{"alias", "version: 1\nrules:\n  - id: r\n    principals: &p {any: true}\n    agents: [documents]\n    grants: [documents:read]\n", []error{policy.ErrSyntax}},
		{"several at once", rule + "    grants: [documents:erase]\n    max_ttl: forever\n    conditions: ['1']\n",
			[]error{policy.ErrUnknownGrant, policy.ErrBadTTL, policy.ErrConditionType}},
		{"too large", "version: 1\n#" + strings.Repeat("x", policy.MaxPolicyBytes), []error{policy.ErrTooLarge}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, problems, err := policy.Load(context.Background(), []byte(tc.yaml), "t.yaml", testCatalog())
			if p != nil {
				t.Fatalf("Load returned a policy for a broken document")
			}
			if !errors.Is(err, policy.ErrInvalidPolicy) {
				t.Fatalf("err = %v, want ErrInvalidPolicy", err)
			}
			for _, want := range tc.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("err does not wrap %v:\n%v", want, err)
				}
			}
			for _, pr := range problems {
				if !strings.HasPrefix(pr.Pos, "t.yaml") {
					t.Errorf("problem without position: %v", pr)
				}
			}
		})
	}
}

// TestLoadSuggestsField checks the did-you-mean hint for typo'd fields.
func TestLoadSuggestsField(t *testing.T) {
	_, _, err := policy.Load(context.Background(), []byte("version: 1\nrules:\n  - id: r\n    principals: {any: true}\n    agents: [documents]\n    grnats: [documents:read]\n"), "t.yaml", testCatalog())
	if err == nil || !strings.Contains(err.Error(), `did you mean "grants"?`) {
		t.Errorf("no suggestion in %v", err)
	}
}

// TestLoadWarningsOnly checks that warnings do not prevent loading and are
// not errors.
func TestLoadWarningsOnly(t *testing.T) {
	data, err := os.ReadFile("testdata/load/warnings.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, problems, err := policy.Load(context.Background(), data, "warnings.yaml", testCatalog())
	if err != nil || p == nil {
		t.Fatalf("Load = %v, %v", p, err)
	}
	var shadowed, legacy bool
	for _, pr := range problems {
		if !pr.Warning {
			t.Errorf("non-warning problem in a loaded policy: %v", pr)
		}
		shadowed = shadowed || errors.Is(pr, policy.ErrNeverMatches)
		legacy = legacy || errors.Is(pr, policy.ErrLegacyGrant)
	}
	if !shadowed || !legacy {
		t.Errorf("warnings missing: never-matches %t, legacy %t", shadowed, legacy)
	}
}

// TestRevision checks that the revision depends on the content only.
func TestRevision(t *testing.T) {
	a, b := loadQuickstart(t), loadQuickstart(t)
	if a.Revision() != b.Revision() || len(a.Revision()) != 12 {
		t.Errorf("revisions %q, %q", a.Revision(), b.Revision())
	}
	if policy.Revision([]byte("version: 1\n")) == policy.Revision([]byte("version: 1\n\n")) {
		t.Error("different content, same revision")
	}
}

// TestLoadCanceled checks that a canceled context stops Load.
func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := policy.Load(ctx, []byte("version: 1\n"), "t.yaml", testCatalog()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
