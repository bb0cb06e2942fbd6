package enforce

import (
	"encoding/json"
	"strings"
)

// Argument names that carry resources. A caller names resources by
// handle; the gateway replaces the handles with the real resource ids
// the upstream acts on.
const (
	ArgHandle      = "resourceHandle"
	ArgHandles     = "resourceHandles"
	ArgResourceID  = "resourceId"
	ArgResourceIDs = "resourceIds"
)

// RewriteArguments replaces resourceHandle (and resourceHandles) with the
// real ids the scope's capability designates. Every handle must be one of
// the capability's. Real ids from the caller are refused: the caller only
// ever names resources by handle. A call naming no handle is scoped to
// all of the capability's resources through resourceIds. in is not
// changed.
func (s *Scope) RewriteArguments(in map[string]json.RawMessage) (map[string]json.RawMessage, *Refusal) {
	if r := checkArgumentNames(in); r != nil {
		return nil, r
	}
	out := make(map[string]json.RawMessage, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	if raw, ok := in[ArgHandle]; ok {
		h, isString := stringArg(raw)
		id, ok := "", false
		if isString && s.Claims.HasHandle(h) {
			id, ok = s.Resources.ID(h)
		}
		if !ok || id == "" {
			return nil, notInCapability()
		}
		delete(out, ArgHandle)
		out[ArgResourceID] = encodeJSON(id)
		return out, nil
	}
	ids, r := s.handleIDs(in)
	if r != nil {
		return nil, r
	}
	delete(out, ArgHandles)
	out[ArgResourceIDs] = encodeJSON(ids)
	return out, nil
}

// handleIDs are the real ids of the handles listed in resourceHandles, or
// of all the capability's handles when the call lists none.
func (s *Scope) handleIDs(in map[string]json.RawMessage) ([]string, *Refusal) {
	ids := make([]string, 0, len(s.Claims.Handles))
	raw, ok := in[ArgHandles]
	if !ok {
		for _, h := range s.Claims.Handles {
			id, _ := s.Resources.ID(h)
			ids = append(ids, id)
		}
		return ids, nil
	}
	var hs []string
	if json.Unmarshal(raw, &hs) != nil || len(hs) == 0 {
		return nil, refuse(ResourceNotPermitted, "resourceHandles must list handles of the capability", nil)
	}
	for _, h := range hs {
		id, ok := s.Resources.ID(h)
		if !s.Claims.HasHandle(h) || !ok || id == "" {
			return nil, notInCapability()
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// stringArg decodes an argument that must be a string, as
// encoding/json does (null is ""). A literal that holds no escape and
// nothing but printable ASCII is its own content, read without decoding.
func stringArg(raw json.RawMessage) (string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && printableASCII(raw[1:n-1]) {
		return string(raw[1 : n-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// printableASCII reports whether b holds only printable ASCII other than
// the quote and the backslash.
func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func notInCapability() *Refusal {
	return refuse(ResourceNotPermitted, "resource handle is not in the capability", nil)
}

func namedByID() *Refusal {
	return refuse(ResourceNotPermitted, "resources are named by handle, not by id", nil)
}

// checkArgumentNames refuses real resource ids from the caller, and any
// argument whose name is a case variant of a resource argument: an agent
// decoding with encoding/json would read "ResourceId" as resourceId, which
// would let a caller name a resource the capability does not designate.
func checkArgumentNames(in map[string]json.RawMessage) *Refusal {
	if _, ok := in[ArgResourceID]; ok {
		return namedByID()
	}
	if _, ok := in[ArgResourceIDs]; ok {
		return namedByID()
	}
	return RefuseCaseVariants(in, "params.arguments", "argument", []string{ArgHandle, ArgHandles, ArgResourceID, ArgResourceIDs})
}

// RefuseCaseVariants refuses a member whose name differs from one of the
// reserved names only in case. The gateway decides on exact names, but an
// agent decoding with encoding/json matches names case-insensitively and
// would act on the variant as if it were the real member. at is the path
// of the object that holds members (the refusal's data.member is at.k);
// what names the kind of member in its message.
func RefuseCaseVariants(members map[string]json.RawMessage, at, what string, reserved []string) *Refusal {
	for k := range members {
		for _, name := range reserved {
			if k != name && strings.EqualFold(k, name) {
				return refuse(InvalidParams, what+" "+k+" is a case variant of "+name, map[string]any{"member": at + "." + k})
			}
		}
	}
	return nil
}

// encodeJSON encodes a string or a list of strings, which always encode.
func encodeJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("enforce: " + err.Error())
	}
	return b
}
