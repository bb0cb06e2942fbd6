package agentcard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Validation errors. Validate wraps exactly one of them; match with
// errors.Is, and use errors.As on *VersionMismatchError or
// *MissingCapabilityError for the details.
var (
	// ErrVersionMismatch means the wanted protocol version is outside what
	// the card declares, or the card declares no protocol version at all.
	ErrVersionMismatch = errors.New("agentcard: protocol version mismatch")
	// ErrMissingCapability means the card does not declare a capability the
	// task needs.
	ErrMissingCapability = errors.New("agentcard: missing capability")
	// ErrMalformedCard means a member Validate reads has the wrong type or
	// an unparseable value. Such a card is refused whatever is required.
	ErrMalformedCard = errors.New("agentcard: malformed card")
	// ErrInvalidRequirements means the caller's Requirements are unusable:
	// no or an unparseable protocol version, or an unknown capability name.
	ErrInvalidRequirements = errors.New("agentcard: invalid requirements")
)

// Stable reason words for a validation failure (see Reason).
const (
	ReasonVersionMismatch     = "version_mismatch"
	ReasonMissingCapability   = "missing_capability"
	ReasonMalformedCard       = "malformed_card"
	ReasonInvalidRequirements = "invalid_requirements"
)

// Requirements is what a task needs from the agent it is delegated to.
type Requirements struct {
	// ProtocolVersion is the A2A version the call speaks: the caller's
	// A2A-Version header, or the configured one. Required.
	ProtocolVersion string
	// Capabilities lists what the task needs, for example ReqStreaming,
	// ReqPushNotifications, ReqCapabilityExtension (see RequirementsFor).
	Capabilities []string
	// AllowLegacyAmbient waives ReqCapabilityExtension (and a requirement of
	// ExtensionURI itself): policy explicitly lets this delegation fall
	// back to ambient authority on an agent that does not understand
	// capabilities. Use UnderstandsCapabilities to tell which applies.
	AllowLegacyAmbient bool
}

// VersionMismatchError is the typed form of ErrVersionMismatch.
type VersionMismatchError struct {
	// Wanted is the version the call speaks: Requirements.ProtocolVersion,
	// or for CheckMethod the caller's A2A-Version or the method's own.
	Wanted string
	// Min and Max are the card's min/max_protocol_version range; "" is an
	// open end. A card that declares exactly one version and no range has
	// Min = Max = that version.
	Min, Max string
	// Versions lists the other exact versions the card declares (its
	// protocolVersion and its JSON-RPC interfaces' versions), those not
	// already inside [Min, Max].
	Versions []string
	// Method, set by CheckMethod only, is a method name that does not
	// belong to the Wanted version (v0.1's tasks/send under
	// A2A-Version 1.0, say); the card was then not consulted.
	Method string
}

// Error describes the mismatch.
func (e *VersionMismatchError) Error() string {
	if e.Method != "" {
		return fmt.Sprintf("%v: method %s is not part of A2A %s", ErrVersionMismatch, e.Method, e.Wanted)
	}
	var have []string
	if e.Min != "" || e.Max != "" {
		have = append(have, fmt.Sprintf("[%s, %s]", orOpen(e.Min), orOpen(e.Max)))
	}
	have = append(have, e.Versions...)
	if len(have) == 0 {
		return fmt.Sprintf("%v: wanted %s, card declares no protocol version", ErrVersionMismatch, e.Wanted)
	}
	return fmt.Sprintf("%v: wanted %s, agent supports %s", ErrVersionMismatch, e.Wanted, strings.Join(have, ", "))
}

// Unwrap returns ErrVersionMismatch.
func (e *VersionMismatchError) Unwrap() error { return ErrVersionMismatch }

func orOpen(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// MissingCapabilityError is the typed form of ErrMissingCapability.
type MissingCapabilityError struct {
	// Capability is the first missing requirement, in requirement order.
	Capability string
	// Missing lists every missing requirement, in requirement order.
	Missing []string
}

// Error names the missing capabilities.
func (e *MissingCapabilityError) Error() string {
	return fmt.Sprintf("%v: agent does not declare %s", ErrMissingCapability, strings.Join(e.Missing, ", "))
}

// Unwrap returns ErrMissingCapability.
func (e *MissingCapabilityError) Unwrap() error { return ErrMissingCapability }

// Validate checks, before a task is delegated to an agent, that the agent's
// card can serve it, following the contract's safe-discovery pattern. It
// returns nil when the card is fit, and otherwise the first failure in this
// fixed order, so the same inputs always give the same answer:
//
//  1. ErrInvalidRequirements: need is unusable;
//  2. ErrMalformedCard: capabilities, a tier flag, extensions or a version
//     member Validate reads is of the wrong type or unparseable, or the
//     range is inverted;
//  3. *VersionMismatchError: need.ProtocolVersion is outside every
//     version the card declares: the min_protocol_version..
//     max_protocol_version range (either end may be open), protocolVersion,
//     and the versions of the JSON-RPC entries of supportedInterfaces and
//     additionalInterfaces. None of these hides the others; a card with
//     none of them is refused;
//  4. *MissingCapabilityError: naming every required capability the card
//     does not declare.
//
// Versions are 1 to 3 dot-separated decimal numbers without leading zeros
// ("0.3", "0.3.0", "1.0"). Each stands for every version it prefixes, so
// two versions are compared on the parts both have: "0.3" is within
// [0.3.1, 1.0] and "1.2.5" is within [0.3, 1.2]. Validate the upstream
// card as fetched: the gateway's rewritten card declares the capability
// extension for every agent. card is not modified.
func Validate(card map[string]any, need Requirements) error {
	wanted, err := checkRequirements(need)
	if err != nil {
		return err
	}
	if err := checkCard(card); err != nil {
		return err
	}
	spec, _ := cardVersions(card)
	if !spec.admits(wanted) {
		return spec.mismatch(need.ProtocolVersion)
	}
	caps := capabilitiesOf(card)
	var missing []string
	for _, name := range need.Capabilities {
		if need.AllowLegacyAmbient && (name == ReqCapabilityExtension || name == ExtensionURI) {
			continue
		}
		if !declares(caps, name) && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return &MissingCapabilityError{Capability: missing[0], Missing: missing}
	}
	return nil
}

// checkRequirements parses the wanted version and checks every name.
func checkRequirements(need Requirements) (version, error) {
	v, err := parseVersion(need.ProtocolVersion)
	if err != nil {
		return version{}, fmt.Errorf("%w: protocol version: %w", ErrInvalidRequirements, err)
	}
	for _, name := range need.Capabilities {
		if !knownRequirement(name) {
			return version{}, fmt.Errorf("%w: unknown capability %q", ErrInvalidRequirements, name)
		}
	}
	return v, nil
}

// knownRequirement reports whether Validate knows how to check name.
func knownRequirement(name string) bool {
	switch {
	case name == ReqStreaming, name == ReqCapabilityExtension:
		return true
	case slices.Contains(DeclaredCapabilities(), name), slices.Contains(DeprecatedCapabilities(), name):
		return true
	}
	return isExtensionURI(name)
}

func isExtensionURI(name string) bool {
	return strings.HasPrefix(name, "https://") || strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "urn:")
}

// declares reports whether caps declares the requirement name.
func declares(caps map[string]any, name string) bool {
	switch {
	case name == ReqStreaming:
		a, _ := flag(caps, "streaming")
		b, _ := flag(caps, CapStreamingMessage)
		return a || b
	case name == ReqCapabilityExtension:
		return slices.Contains(extensionURIs(caps), ExtensionURI)
	case isExtensionURI(name):
		return slices.Contains(extensionURIs(caps), name)
	}
	v, _ := flag(caps, name)
	return v
}

// Reason returns the stable reason word of a Validate error (one of the
// Reason* constants), or "" for nil or an error Validate does not return.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrInvalidRequirements):
		return ReasonInvalidRequirements
	case errors.Is(err, ErrMalformedCard):
		return ReasonMalformedCard
	case errors.Is(err, ErrVersionMismatch):
		return ReasonVersionMismatch
	case errors.Is(err, ErrMissingCapability):
		return ReasonMissingCapability
	}
	return ""
}

// checkCard checks the type of every member Validate reads.
func checkCard(card map[string]any) error {
	if card == nil {
		return fmt.Errorf("%w: card is not a JSON object", ErrMalformedCard)
	}
	if v, ok := card["capabilities"]; ok {
		if _, isObj := v.(map[string]any); !isObj {
			return fmt.Errorf("%w: capabilities is not an object", ErrMalformedCard)
		}
	}
	caps := capabilitiesOf(card)
	names := append(DeclaredCapabilities(), DeprecatedCapabilities()...)
	names = append(names, "streaming", "pushNotifications", "stateTransitionHistory")
	for _, name := range names {
		if v, ok := caps[name]; ok {
			if _, isBool := v.(bool); !isBool {
				return fmt.Errorf("%w: capabilities.%s is not a boolean", ErrMalformedCard, name)
			}
		}
	}
	if err := checkExtensions(caps); err != nil {
		return err
	}
	_, err := cardVersions(card)
	return err
}

// checkExtensions requires capabilities.extensions, when present, to be a
// list of objects each with a non-empty string uri.
func checkExtensions(caps map[string]any) error {
	v, ok := caps["extensions"]
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		return fmt.Errorf("%w: capabilities.extensions is not a list", ErrMalformedCard)
	}
	for i, e := range list {
		m, _ := e.(map[string]any)
		if uri, _ := m["uri"].(string); uri == "" {
			return fmt.Errorf("%w: capabilities.extensions[%d] has no uri", ErrMalformedCard, i)
		}
	}
	return nil
}
