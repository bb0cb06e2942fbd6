package policy

import "errors"

// Load errors. Every Problem that Load reports wraps exactly one of these, so
// a caller (or a test) can ask errors.Is(err, ErrUnknownGrant) on the joined
// error that Load returns.
var (
	// ErrInvalidPolicy wraps the joined error returned by Load whenever at
	// least one non-warning Problem was found.
	ErrInvalidPolicy = errors.New("policy: invalid policy")
	// ErrTooLarge means the policy document exceeds MaxPolicyBytes.
	ErrTooLarge = errors.New("policy: policy file too large")
	// ErrSyntax means the document is not well-formed YAML, holds more than
	// one document, or uses anchors and aliases.
	ErrSyntax = errors.New("policy: YAML syntax error")
	// ErrUnknownField means a mapping key that the policy schema does not
	// define (typically a typo).
	ErrUnknownField = errors.New("policy: unknown field")
	// ErrFieldType means a value of the wrong YAML type (a list where a string
	// is expected, text where a number is expected, ...).
	ErrFieldType = errors.New("policy: wrong value type")
	// ErrMissingField means a required field is absent or empty.
	ErrMissingField = errors.New("policy: required field missing")
	// ErrVersion means version is not 1.
	ErrVersion = errors.New("policy: unsupported version")
	// ErrUnknownAgent means a rule names an agent the catalog does not know.
	ErrUnknownAgent = errors.New("policy: unknown agent")
	// ErrUnknownGrant means a rule names a grant the agent does not offer.
	ErrUnknownGrant = errors.New("policy: unknown grant")
	// ErrUnknownOperation means a rule names an operation outside the grant.
	ErrUnknownOperation = errors.New("policy: operation outside the grant")
	// ErrUnknownHost means an A2E rule names a host the catalog does not know.
	ErrUnknownHost = errors.New("policy: unknown A2E host")
	// ErrUnknownCapability means an A2E rule names a capability outside the
	// A2E capability list.
	ErrUnknownCapability = errors.New("policy: unknown A2E capability")
	// ErrUnknownSkill means an ambient rule names a skill the agent lacks.
	ErrUnknownSkill = errors.New("policy: unknown skill")
	// ErrBadCondition means a CEL condition does not parse or type-check.
	ErrBadCondition = errors.New("policy: condition does not compile")
	// ErrConditionType means a CEL condition is not of type bool.
	ErrConditionType = errors.New("policy: condition is not bool")
	// ErrBadTTL means max_ttl is not a positive Go duration.
	ErrBadTTL = errors.New("policy: max_ttl must be a positive duration")
	// ErrBadWait means an approval wait is not a positive duration of at
	// most MaxApprovalWait.
	ErrBadWait = errors.New("policy: approval wait must be a positive duration")
	// ErrBadDepth means max_delegation_depth is negative.
	ErrBadDepth = errors.New("policy: max_delegation_depth must not be negative")
	// ErrBadEffect means effect is neither allow nor deny.
	ErrBadEffect = errors.New("policy: effect must be allow or deny")
	// ErrDuplicateRule means two rules of the same section share an id.
	ErrDuplicateRule = errors.New("policy: duplicate rule id")
	// ErrBadMatcher means a principals matcher is empty or contradictory.
	ErrBadMatcher = errors.New("policy: invalid principals matcher")
	// ErrNotLegacy means an ambient rule names an agent that is not marked
	// legacy in the catalog: capability-aware agents never get ambient calls.
	ErrNotLegacy = errors.New("policy: ambient rule for a capability-aware agent")
	// ErrInvalidRule covers field combinations that make no sense, such as a
	// max_ttl on a deny rule.
	ErrInvalidRule = errors.New("policy: invalid rule")
	// ErrNeverMatches marks warnings about rules that can never take effect.
	// It never appears in Load's error, only in warning Problems.
	ErrNeverMatches = errors.New("policy: rule can never take effect")
	// ErrLegacyGrant marks the warning that an allow rule issues a legacy grant.
	ErrLegacyGrant = errors.New("policy: rule allows a legacy grant")
)

// Watcher errors.
var (
	// ErrWatcherClosed is returned by Reload after Close.
	ErrWatcherClosed = errors.New("policy: watcher closed")
	// ErrReadPolicy wraps a failure to read the policy file.
	ErrReadPolicy = errors.New("policy: cannot read policy file")
)
