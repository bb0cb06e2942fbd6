package policytest

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/policy"
	"go.yaml.in/yaml/v3"
)

// MaxSuiteBytes bounds the size of a test table.
const MaxSuiteBytes = 4 << 20

// Suite is a parsed expectation table. See deploy/examples/quickstart/
// policy_tests.yaml for the documented file format.
type Suite struct {
	// Version must be 1.
	Version int `yaml:"version"`
	// Now is the decision time of every case.
	Now time.Time `yaml:"now"`
	// Principals maps a short name to a principal.
	Principals map[string]policy.Principal `yaml:"principals"`
	// Cases lists the expectations, in file order.
	Cases []Case `yaml:"cases"`
}

// Case is one expectation: a principal, exactly one of Request, A2E or
// Ambient, and what must come out.
type Case struct {
	// Name identifies the case in reports.
	Name string `yaml:"name"`
	// Principal is a key of Suite.Principals.
	Principal string `yaml:"principal"`
	// Request is an a2a/capabilities/request.
	Request *Request `yaml:"request"`
	// A2E is an A2E handshake.
	A2E *A2ERequest `yaml:"a2e"`
	// Ambient is a call without a capability.
	Ambient *AmbientRequest `yaml:"ambient"`
	// Expect is the expected outcome.
	Expect Expect `yaml:"expect"`
	// Pos is file:line of the case (set by Parse).
	Pos string `yaml:"-"`
}

// Request is a capability request of a case.
type Request struct {
	Agent      string            `yaml:"agent"`      // audience agent
	Grants     []string          `yaml:"grants"`     // requested grants
	Operations []string          `yaml:"operations"` // optional narrowing
	Collection string            `yaml:"collection"` // resourceQuery.collection
	Filter     map[string]string `yaml:"filter"`     // resourceQuery.filter
	Purpose    string            `yaml:"purpose"`    // stated purpose
	// Expires is RFC 3339, or a Go duration relative to Suite.Now ("2h",
	// "-5m"); empty means not asked.
	Expires string `yaml:"expires"`
}

// A2ERequest is an A2E handshake of a case.
type A2ERequest struct {
	Host         string   `yaml:"host"`         // A2E host name
	Capabilities []string `yaml:"capabilities"` // agent_caps
}

// AmbientRequest is a capability-less call of a case.
type AmbientRequest struct {
	Agent  string `yaml:"agent"`  // legacy agent
	Skill  string `yaml:"skill"`  // invoked skill, may be empty
	Method string `yaml:"method"` // JSON-RPC method
}

// Expect is what a case must produce. Unset fields are not checked.
type Expect struct {
	// Allow is the expected Decision.Allow (A2A and ambient cases).
	Allow *bool `yaml:"allow"`
	// Grants, when present, is the exact set of issued grants.
	Grants map[string]GrantExpect `yaml:"grants"`
	// Denied maps a grant (A2A) or capability (A2E) that must be denied to
	// the rule id that must be named as denying it, "default" for default
	// deny, or "" for any reason.
	Denied map[string]string `yaml:"denied"`
	// Allowed, when present, is the exact set of allowed A2E capabilities.
	Allowed []string `yaml:"allowed"`
	// Matched lists rule ids that must appear in Decision.Matched.
	Matched []string `yaml:"matched"`
}

// GrantExpect is what one issued grant must look like.
type GrantExpect struct {
	Rule       string              `yaml:"rule"`       // issuing allow rule
	Operations []string            `yaml:"operations"` // exact set
	Collection *string             `yaml:"collection"` // Resource.Collection
	Filter     map[string][]string `yaml:"filter"`     // Resource.Filter entries (exact sets)
	// ExpiresIn is the expected Expires - Suite.Now, a Go duration.
	ExpiresIn  string            `yaml:"expires_in"`
	MaxDepth   *int              `yaml:"max_depth"`  // GrantDecision.MaxDepth
	Attenuable *bool             `yaml:"attenuable"` // GrantDecision.Attenuable
	Permits    []policy.Resource `yaml:"permits"`    // must be designatable
	Refuses    []policy.Resource `yaml:"refuses"`    // must not be designatable
	// Approval is required when the grant waits for human approval, and
	// must then name its approvers exactly.
	Approval *ApprovalExpect `yaml:"approval"`
}

// ApprovalExpect is the approval a grant must wait for.
type ApprovalExpect struct {
	IDs    []string `yaml:"ids"`    // approver principal ids (exact set)
	Groups []string `yaml:"groups"` // approver groups (exact set)
	Wait   string   `yaml:"wait"`   // optional: how long it may wait
}

// Parse reads a test table strictly: unknown fields, a missing now, unknown
// principals and cases without exactly one request kind are errors.
func Parse(data []byte, name string) (*Suite, error) {
	if len(data) > MaxSuiteBytes {
		return nil, fmt.Errorf("%w: %s: %d bytes exceeds %d", ErrSyntax, name, len(data), MaxSuiteBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	s := &Suite{}
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSyntax, name, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSyntax, name, err)
	}
	setPositions(s, &doc, name)
	return s, s.validate(name)
}

// setPositions records each case's line from the YAML node tree.
func setPositions(s *Suite, doc *yaml.Node, name string) {
	for i := range s.Cases {
		s.Cases[i].Pos = name
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "cases" {
			continue
		}
		for j, c := range root.Content[i+1].Content {
			if j < len(s.Cases) {
				s.Cases[j].Pos = fmt.Sprintf("%s:%d", name, c.Line)
			}
		}
	}
}

// validate checks the table's internal consistency.
func (s *Suite) validate(name string) error {
	var errs []error
	if s.Version != 1 {
		errs = append(errs, fmt.Errorf("%w: %s: version %d (want 1)", ErrVersion, name, s.Version))
	}
	if s.Now.IsZero() {
		errs = append(errs, fmt.Errorf("%w: %s: now is required (RFC 3339)", ErrSyntax, name))
	}
	for _, c := range s.Cases {
		if err := s.validateCase(c); err != nil {
			errs = append(errs, fmt.Errorf("%s: case %q: %w", c.Pos, c.Name, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Suite) validateCase(c Case) error {
	kinds := 0
	for _, set := range []bool{c.Request != nil, c.A2E != nil, c.Ambient != nil} {
		if set {
			kinds++
		}
	}
	switch {
	case c.Name == "":
		return fmt.Errorf("%w: name is required", ErrCase)
	case kinds != 1:
		return fmt.Errorf("%w: exactly one of request, a2e and ambient is required", ErrCase)
	}
	if _, ok := s.Principals[c.Principal]; !ok {
		return fmt.Errorf("%w: %q", ErrUnknownPrincipal, c.Principal)
	}
	if c.Request != nil {
		if _, err := s.expiry(c.Request.Expires); err != nil {
			return err
		}
		for g, ge := range c.Expect.Grants {
			if _, err := parseDuration(ge.ExpiresIn); err != nil {
				return fmt.Errorf("%w: grants.%s.expires_in: %w", ErrCase, g, err)
			}
			if ge.Approval == nil {
				continue
			}
			if _, err := parseDuration(ge.Approval.Wait); err != nil {
				return fmt.Errorf("%w: grants.%s.approval.wait: %w", ErrCase, g, err)
			}
		}
	}
	return nil
}

// expiry resolves a Request.Expires value against Now.
func (s *Suite) expiry(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: expires %q is neither RFC 3339 nor a duration", ErrCase, v)
	}
	return s.Now.Add(d), nil
}

// parseDuration parses an optional duration.
func parseDuration(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	return time.ParseDuration(v)
}
