package agentcard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

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

// mustVersion parses a version this package writes itself.
func mustVersion(s string) version {
	v, err := parseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
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

// versionSpec is what a card says about protocol versions: the contract's
// range, whose ends may be open (""), and the exact versions of the
// top-level protocolVersion and of the JSON-RPC interfaces. The card
// supports the union of both. Its strings have been parsed by
// cardVersions.
type versionSpec struct {
	min, max string   // the contract range; both "" when not declared
	list     []string // exact versions, without duplicates
}

// hasRange reports whether the card declares a contract range.
func (s versionSpec) hasRange() bool { return s.min != "" || s.max != "" }

// admits reports whether w is within the spec.
func (s versionSpec) admits(w version) bool {
	if slices.ContainsFunc(s.list, func(v string) bool { return compare(w, mustVersion(v)) == 0 }) {
		return true
	}
	return s.hasRange() && (s.min == "" || compare(w, mustVersion(s.min)) >= 0) &&
		(s.max == "" || compare(w, mustVersion(s.max)) <= 0)
}

// mismatch returns the typed error for a wanted version the spec refuses.
// A single exact version and no range reads as the range [v, v]; exact
// versions inside the range are not repeated.
func (s versionSpec) mismatch(wanted string) *VersionMismatchError {
	if !s.hasRange() && len(s.list) == 1 {
		return &VersionMismatchError{Wanted: wanted, Min: s.list[0], Max: s.list[0]}
	}
	e := &VersionMismatchError{Wanted: wanted, Min: s.min, Max: s.max}
	rng := versionSpec{min: s.min, max: s.max}
	for _, v := range s.list {
		if !rng.admits(mustVersion(v)) {
			e.Versions = append(e.Versions, v)
		}
	}
	return e
}

// cardVersions reads every version declaration of the card: the
// min/max_protocol_version range, protocolVersion, and the versions of the
// JSON-RPC interfaces. None hides another: an agent whose protocolVersion
// is 0.3 and that lists interfaces for 1.0 and 0.3 supports both.
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
	}
	s := versionSpec{min: lo, max: hi}
	pv, _, err := versionMember(card, "protocolVersion", "protocolVersion")
	if err != nil {
		return versionSpec{}, err
	}
	if pv != "" {
		s.list = append(s.list, pv)
	}
	return interfaceVersions(card, s)
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

// interfaceVersions adds to s the protocolVersion (A2A v1.0) and
// protocol_versions (the contract) of every JSON-RPC entry of
// supportedInterfaces and additionalInterfaces, without duplicates. An
// interface of another binding (gRPC, HTTP+JSON) is not one the gateway
// can front, so its versions do not count.
func interfaceVersions(card map[string]any, s versionSpec) (versionSpec, error) {
	for _, member := range []string{"supportedInterfaces", "additionalInterfaces"} {
		list, _ := card[member].([]any)
		for i, e := range list {
			m, _ := e.(map[string]any)
			if !isJSONRPC(m) {
				continue
			}
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

// BindingJSONRPC is the one protocol binding the gateway fronts.
const BindingJSONRPC = "JSONRPC"

// isJSONRPC reports whether an interface entry is a JSON-RPC one: its
// protocolBinding (v1.0) or transport (v0.3) is JSONRPC, in any case, or
// it names no binding at all (v0.3's default transport).
func isJSONRPC(iface map[string]any) bool {
	for _, k := range []string{"protocolBinding", "transport"} {
		if v, ok := iface[k]; ok {
			s, _ := v.(string)
			return strings.EqualFold(s, BindingJSONRPC)
		}
	}
	return true
}
