package agentcard

import (
	"fmt"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// DefaultProtocolVersion is the version a call without an A2A-Version
// header speaks, as A2A v1.0 requires a server to assume.
const DefaultProtocolVersion = "0.3"

// generation is the span of A2A versions a method name belongs to.
type generation struct {
	lo, hi string // "" is an open end; both "" for a name of no generation
	own    string // the version a call of this name speaks without a header
}

// The generations of A2A method names. v0.1 named its methods tasks/send
// and so on; v0.2 renamed sending to message/send, which v0.3 kept, and
// tasks/get, tasks/cancel and tasks/resubscribe lived through all three;
// v1.0 uses PascalCase names (SendMessage).
var (
	genV01    = generation{lo: "0.1", hi: "0.1", own: "0.1"}
	genV01V03 = generation{lo: "0.1", hi: "0.3", own: DefaultProtocolVersion}
	genV03    = generation{lo: "0.2", hi: "0.3", own: DefaultProtocolVersion}
	genV1     = generation{lo: "1", own: "1.0"} // and, until renamed, later versions
	genNone   = generation{own: DefaultProtocolVersion}
)

// methodGeneration returns the generation of an A2A method name. The
// capability extension's own methods (a2a/...) and unknown names have none.
func methodGeneration(method string) generation {
	canonical, known := jsonrpc.MethodGeneration(method)
	switch {
	case !known || strings.HasPrefix(canonical, "a2a/"):
		return genNone
	case !strings.Contains(method, "/"):
		return genV1
	}
	switch method {
	case "tasks/send", "tasks/sendSubscribe", "tasks/pushNotification/set", "tasks/pushNotification/get":
		return genV01
	case "tasks/get", "tasks/cancel", "tasks/resubscribe":
		return genV01V03
	}
	return genV03
}

// contains reports whether v belongs to the generation.
func (g generation) contains(v version) bool {
	return (g.lo == "" || compare(v, mustVersion(g.lo)) >= 0) && (g.hi == "" || compare(v, mustVersion(g.hi)) <= 0)
}

// CheckMethod decides, before a call is forwarded, whether the agent's
// card supports the protocol version the call speaks. a2aVersion is the
// caller's A2A-Version header, "" when absent. Every method generation is
// checked, including v0.1's tasks/send, v0.3's message/send and v1.0's
// SendMessage:
//
//   - with a header, the method name must belong to that version (a v0.1
//     name under A2A-Version 1.0 is refused, with Method set on the
//     error), and the card must support it;
//   - without one, the call speaks its method name's own version: 0.3 for
//     the v0.2/v0.3 names, those v0.1 shared with them and names of no
//     generation (the capability extension's), as A2A v1.0 tells a server
//     to assume; 0.1 for the names only v0.1 had; 1.0 for PascalCase names.
//
// The card's versions are read as Validate reads them (the upstream card
// or the served one give the same answer). It returns nil, a
// *VersionMismatchError (A2A's VersionNotSupportedError, -32009),
// ErrMalformedCard, or ErrInvalidRequirements for an unparseable header.
func CheckMethod(card map[string]any, method, a2aVersion string) error {
	gen := methodGeneration(method)
	wanted := gen.own
	if a2aVersion != "" {
		v, err := parseVersion(a2aVersion)
		if err != nil {
			return fmt.Errorf("%w: A2A-Version: %w", ErrInvalidRequirements, err)
		}
		if !gen.contains(v) {
			return &VersionMismatchError{Wanted: a2aVersion, Method: method}
		}
		wanted = a2aVersion
	}
	if card == nil {
		return fmt.Errorf("%w: card is not a JSON object", ErrMalformedCard)
	}
	spec, err := cardVersions(card)
	if err != nil {
		return err
	}
	if !spec.admits(mustVersion(wanted)) {
		return spec.mismatch(wanted)
	}
	return nil
}

// SpokenVersion is the A2A version a call of method speaks: the caller's
// A2A-Version header when it sent one, else the method name's own version
// (see CheckMethod).
func SpokenVersion(method, a2aVersion string) string {
	if a2aVersion != "" {
		return a2aVersion
	}
	return methodGeneration(method).own
}
