package jsonrpc

import (
	"strconv"
	"unicode/utf8"
)

var _ error = (*MemberError)(nil)

// MemberError is an invalid-params failure at one member: the member's
// path from the request, such as params.grants[0] or
// params.resourceQuery.filter.team, and what is wrong with it, in JSON's
// words ("unknown member", "must be a string, not a number"). It matches
// ErrInvalidParams, and ErrorFor puts the path in data.member. It never
// names a Go type or field: the caller wrote JSON.
type MemberError struct {
	// Member is the path of the member at fault; "params" for params as a
	// whole.
	Member string
	// Problem says what is wrong with the member.
	Problem string
}

// Error returns "jsonrpc: invalid params: <member>: <problem>".
func (e *MemberError) Error() string {
	return "jsonrpc: invalid params: " + e.Member + ": " + e.Problem
}

// Unwrap returns ErrInvalidParams.
func (e *MemberError) Unwrap() error { return ErrInvalidParams }

// paramsPath is the root of every MemberError's path.
const paramsPath = "params"

// maxPath bounds a MemberError's path, which may quote the caller's names.
const maxPath = 256

// atMember starts a MemberError at the value being looked at; each
// enclosing value prepends its own step with within, and the caller of
// the walk prepends paramsPath.
func atMember(problem string) *MemberError { return &MemberError{Problem: problem} }

// within prepends step to the path of err when err is a *MemberError, and
// returns err.
func within(err error, step string) error {
	if e, ok := err.(*MemberError); ok && len(e.Member) < maxPath {
		e.Member = step + e.Member
	}
	return err
}

// rooted completes err's path under params, bounded by maxPath.
func rooted(err error) error {
	if e, ok := err.(*MemberError); ok {
		e.Member = truncate(paramsPath+e.Member, maxPath)
	}
	return err
}

// nameStep is the path step into the member named name: ".name" for a
// plain name, `["name"]` for any other.
func nameStep(name []byte) string {
	if plainName(name) {
		return "." + string(name)
	}
	if len(name) > maxPath {
		n := maxPath
		for n > 0 && !utf8.RuneStart(name[n]) {
			n--
		}
		name = name[:n]
	}
	return "[" + strconv.Quote(string(name)) + "]"
}

// unescaped is m's name with its escape sequences read.
func unescaped(m Member) []byte {
	if m.Escaped {
		return appendUnescaped(nil, m.Name)
	}
	return m.Name
}

// indexStep is the path step into element i of an array.
func indexStep(i int) string { return "[" + strconv.Itoa(i) + "]" }

// plainName reports whether name is a non-empty run of ASCII letters,
// digits, '_' and '-'.
func plainName(name []byte) bool {
	for _, b := range name {
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b == '-') {
			return false
		}
	}
	return len(name) > 0
}

// jsonKind names the kind of the JSON value text, which is valid.
func jsonKind(text []byte) string {
	switch text[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
