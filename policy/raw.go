package policy

// The raw* types mirror the policy file exactly, as written. They are only
// used between decoding and compilation; Decide never sees them.

// rawFile is the whole policy document.
type rawFile struct {
	Version  *int             `yaml:"version"`
	Defaults *rawDefaults     `yaml:"defaults"`
	Rules    []rawRule        `yaml:"rules"`
	A2E      []rawA2ERule     `yaml:"a2e"`
	Ambient  []rawAmbientRule `yaml:"ambient"`
}

// rawDefaults holds the limits used by allow rules that set none.
type rawDefaults struct {
	MaxTTL             string `yaml:"max_ttl"`
	MaxDelegationDepth *int   `yaml:"max_delegation_depth"`
}

// rawPrincipals is a principals matcher.
type rawPrincipals struct {
	Any       bool                  `yaml:"any"`
	IDs       []string              `yaml:"ids"`
	Issuers   []string              `yaml:"issuers"`
	Groups    []string              `yaml:"groups"`
	AllGroups []string              `yaml:"all_groups"`
	Claims    map[string]stringList `yaml:"claims"`
}

// rawResources is a rule's resource constraint.
type rawResources struct {
	Collection string                `yaml:"collection"`
	Filter     map[string]stringList `yaml:"filter"`
}

// rawRule is an A2A grant rule.
type rawRule struct {
	ID                 string         `yaml:"id"`
	Description        string         `yaml:"description"`
	Effect             string         `yaml:"effect"`
	Principals         *rawPrincipals `yaml:"principals"`
	Agents             []string       `yaml:"agents"`
	Grants             []string       `yaml:"grants"`
	Operations         []string       `yaml:"operations"`
	Resources          *rawResources  `yaml:"resources"`
	MaxTTL             string         `yaml:"max_ttl"`
	MaxDelegationDepth *int           `yaml:"max_delegation_depth"`
	RequirePurpose     bool           `yaml:"require_purpose"`
	Conditions         []string       `yaml:"conditions"`
	Approval           *rawApproval   `yaml:"approval"`
}

// rawApproval is an allow rule's approval section.
type rawApproval struct {
	Approvers *rawApprovers `yaml:"approvers"`
	Wait      string        `yaml:"wait"`
	When      []string      `yaml:"when"`
}

// rawApprovers names who may approve.
type rawApprovers struct {
	IDs    []string `yaml:"ids"`
	Groups []string `yaml:"groups"`
}

// rawA2ERule is an A2E capability rule.
type rawA2ERule struct {
	ID           string         `yaml:"id"`
	Description  string         `yaml:"description"`
	Effect       string         `yaml:"effect"`
	Hosts        []string       `yaml:"hosts"`
	Principals   *rawPrincipals `yaml:"principals"`
	Capabilities []string       `yaml:"capabilities"`
	Conditions   []string       `yaml:"conditions"`
}

// rawAmbientRule is an ambient (capability-less) call rule.
type rawAmbientRule struct {
	ID          string         `yaml:"id"`
	Description string         `yaml:"description"`
	Effect      string         `yaml:"effect"`
	Principals  *rawPrincipals `yaml:"principals"`
	Agents      []string       `yaml:"agents"`
	Skills      []string       `yaml:"skills"`
	Methods     []string       `yaml:"methods"`
	Conditions  []string       `yaml:"conditions"`
}
