package authn

import (
	"context"
	"errors"
	"maps"
	"slices"
	"unicode"
	"unicode/utf8"
)

// maxNameLen bounds the name part of a principal id.
const maxNameLen = 256

// Principal is an authenticated caller.
type Principal struct {
	// ID is "user:<name>" (a human, usually an email) or "agent:<name>".
	ID string
	// Issuer is the OIDC issuer URL that vouched for ID, or DevIssuer ("dev")
	// for a dev API key.
	Issuer string
	// Groups are the caller's groups, in the order the issuer listed them.
	Groups []string
	// Claims are the verified JWT claims as decoded by encoding/json
	// (numbers are float64); nil for a dev API key.
	Claims map[string]any
}

// HasGroup reports whether p is a member of group (exact, case-sensitive).
// A nil Principal belongs to no group.
func (p *Principal) HasGroup(group string) bool {
	return p != nil && slices.Contains(p.Groups, group)
}

// clone returns a copy of p whose slices and top-level map are its own, so a
// caller mutating its Principal cannot affect the configured dev keys or
// another request.
func (p *Principal) clone() *Principal {
	return &Principal{
		ID:     p.ID,
		Issuer: p.Issuer,
		Groups: slices.Clone(p.Groups),
		Claims: maps.Clone(p.Claims),
	}
}

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the Principal stored by WithPrincipal (and so by
// Middleware). ok is false when there is none or it is nil.
func PrincipalFrom(ctx context.Context) (p *Principal, ok bool) {
	p, ok = ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}

// checkName accepts a principal name: non-empty, at most maxNameLen bytes of
// valid UTF-8, with no spaces or control characters. It keeps log lines,
// audit records and policy matches unambiguous.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("must not be empty")
	case len(name) > maxNameLen:
		return errors.New("must be at most 256 bytes")
	case !utf8.ValidString(name):
		return errors.New("must be valid UTF-8")
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) || !unicode.IsPrint(r) {
			return errors.New("must not contain spaces or control characters")
		}
	}
	return nil
}
