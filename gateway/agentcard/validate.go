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
	// Wanted is Requirements.ProtocolVersion.
	Wanted string
	// Min and Max are the card's range; "" is an open end. A card with only
	// protocolVersion has Min = Max = protocolVersion.
	Min, Max string
	// Versions is set instead of Min and Max when the card lists the
	// versions of its interfaces rather than a range.
	Versions []string
}

// Error describes the mismatch.
func (e *VersionMismatchError) Error() string {
	switch {
	case len(e.Versions) > 0:
		return fmt.Sprintf("%v: wanted %s, agent supports %s", ErrVersionMismatch, e.Wanted, strings.Join(e.Versions, ", "))
	case e.Min == "" && e.Max == "":
		return fmt.Sprintf("%v: wanted %s, card declares no protocol version", ErrVersionMismatch, e.Wanted)
	}
	return fmt.Sprintf("%v: wanted %s, agent supports [%s, %s]", ErrVersionMismatch, e.Wanted, orOpen(e.Min), orOpen(e.Max))
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
//  3. *VersionMismatchError: need.ProtocolVersion is outside the card's
//     min_protocol_version..max_protocol_version (either end may be open);
//     without either, protocolVersion is both ends; without that, the
//     versions of supportedInterfaces/additionalInterfaces are listed; a
//     card with none of these is refused;
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

// version is a parsed protocol version of 1 to 3 parts.
type version struct {
	parts [3]uint32
	n     int
}

// parseVersion parses "1", "0.3" or "0.3.0": decimal parts of at most 9
// digits, without signs, spaces or leading zeros.
func parseVersion(s string) (version, error) {
	var v version
	if s == "" {
		return v, errors.New("empty version")
	}
	for part := range strings.SplitSeq(s, ".") {
		if v.n == len(v.parts) {
			return version{}, fmt.Errorf("version %q has more than %d parts", s, len(v.parts))
		}
		if part == "" || len(part) > 9 || (len(part) > 1 && part[0] == '0') {
			return version{}, fmt.Errorf("version %q is not dot-separated numbers", s)
		}
		var n uint32
		for _, c := range []byte(part) {
			if c < '0' || c > '9' {
				return version{}, fmt.Errorf("version %q is not dot-separated numbers", s)
			}
			n = n*10 + uint32(c-'0')
		}
		v.parts[v.n] = n
		v.n++
	}
	return v, nil
}

// compare compares a and b on the parts both have.
func compare(a, b version) int {
	for i := range min(a.n, b.n) {
		switch {
		case a.parts[i] < b.parts[i]:
			return -1
		case a.parts[i] > b.parts[i]:
			return 1
		}
	}
	return 0
}

// versionSpec is what a card says about protocol versions: a range whose
// ends may be open (""), a list of interface versions, or nothing at all.
// Its strings have been parsed by cardVersions.
type versionSpec struct {
	min, max string
	list     []string
}

// admits reports whether w is within the spec.
func (s versionSpec) admits(w version) bool {
	at := func(v string) version { pv, _ := parseVersion(v); return pv }
	switch {
	case s.list != nil:
		return slices.ContainsFunc(s.list, func(v string) bool { return compare(w, at(v)) == 0 })
	case s.min == "" && s.max == "":
		return false
	}
	return (s.min == "" || compare(w, at(s.min)) >= 0) && (s.max == "" || compare(w, at(s.max)) <= 0)
}

// mismatch returns the typed error for a wanted version the spec refuses.
func (s versionSpec) mismatch(wanted string) error {
	return &VersionMismatchError{Wanted: wanted, Min: s.min, Max: s.max, Versions: s.list}
}

// cardVersions reads the card's version declarations, in precedence order:
// the min/max range, protocolVersion, then interface versions.
func cardVersions(card map[string]any) (versionSpec, error) {
	lo, loV, err := versionMember(card, MemberMinProtocolVersion, MemberMinProtocolVersion)
	if err != nil {
		return versionSpec{}, err
	}
	hi, hiV, err := versionMember(card, MemberMaxProtocolVersion, MemberMaxProtocolVersion)
	switch {
	case err != nil:
		return versionSpec{}, err
	case lo != "" && hi != "" && compare(loV, hiV) > 0:
		return versionSpec{}, fmt.Errorf("%w: %s %s is above %s %s", ErrMalformedCard,
			MemberMinProtocolVersion, lo, MemberMaxProtocolVersion, hi)
	case lo != "" || hi != "":
		return versionSpec{min: lo, max: hi}, nil
	}
	pv, _, err := versionMember(card, "protocolVersion", "protocolVersion")
	switch {
	case err != nil:
		return versionSpec{}, err
	case pv != "":
		return versionSpec{min: pv, max: pv}, nil
	}
	return interfaceVersions(card)
}

// versionMember reads one optional version member of obj; where names it
// in errors. An absent member gives "".
func versionMember(obj map[string]any, name, where string) (string, version, error) {
	v, ok := obj[name]
	if !ok {
		return "", version{}, nil
	}
	return versionValue(v, where)
}

// versionValue reads a version string; where names it in errors.
func versionValue(v any, where string) (string, version, error) {
	s, isString := v.(string)
	if !isString {
		return "", version{}, fmt.Errorf("%w: %s is not a string", ErrMalformedCard, where)
	}
	pv, err := parseVersion(s)
	if err != nil {
		return "", version{}, fmt.Errorf("%w: %s: %w", ErrMalformedCard, where, err)
	}
	return s, pv, nil
}

// interfaceVersions lists the protocolVersion (A2A v1.0) and
// protocol_versions (the contract) of every entry of supportedInterfaces
// and additionalInterfaces, without duplicates.
func interfaceVersions(card map[string]any) (versionSpec, error) {
	var s versionSpec
	for _, member := range []string{"supportedInterfaces", "additionalInterfaces"} {
		list, _ := card[member].([]any)
		for i, e := range list {
			m, _ := e.(map[string]any)
			var vals []any
			if v, ok := m["protocolVersion"]; ok {
				vals = append(vals, v)
			}
			more, _ := m["protocol_versions"].([]any)
			for _, v := range append(vals, more...) {
				str, _, err := versionValue(v, fmt.Sprintf("%s[%d] protocol version", member, i))
				if err != nil {
					return versionSpec{}, err
				}
				if !slices.Contains(s.list, str) {
					s.list = append(s.list, str)
				}
			}
		}
	}
	return s, nil
}
