package a2afront

import (
	"encoding/json"
	"strings"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Argument names that carry resource handles. The gateway replaces them
// with the real resource ids the upstream acts on.
const (
	argHandle      = "resourceHandle"
	argHandles     = "resourceHandles"
	argResourceID  = "resourceId"
	argResourceIDs = "resourceIds"
)

// rewriteHandles replaces resourceHandle (and resourceHandles) with the
// real ids the capability designates, read from its opened resource map.
// Every handle must be one of the capability's. Real ids from the caller
// are refused: the caller only ever names resources by handle. A call
// naming no handle is scoped to all of the capability's resources through
// resourceIds.
func rewriteHandles(c *captoken.Claims, resources resourceMap, in map[string]json.RawMessage) (map[string]json.RawMessage, *jsonrpc.Error) {
	if e := checkArgumentNames(in); e != nil {
		return nil, e
	}
	out := make(map[string]json.RawMessage, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	if raw, ok := in[argHandle]; ok {
		h, isString := stringValue(raw)
		id, ok := "", false
		if isString && c.HasHandle(h) {
			id, ok = resources.id(h)
		}
		if !ok || id == "" {
			return nil, capErr(jsonrpc.CodeResourceNotPermitted, "resource handle is not in the capability", nil)
		}
		delete(out, argHandle)
		out[argResourceID] = encodeJSON(id)
		return out, nil
	}
	ids := make([]string, 0, len(c.Handles))
	if raw, ok := in[argHandles]; ok {
		var hs []string
		if json.Unmarshal(raw, &hs) != nil || len(hs) == 0 {
			return nil, capErr(jsonrpc.CodeResourceNotPermitted, "resourceHandles must list handles of the capability", nil)
		}
		for _, h := range hs {
			id, ok := resources.id(h)
			if !c.HasHandle(h) || !ok || id == "" {
				return nil, capErr(jsonrpc.CodeResourceNotPermitted, "resource handle is not in the capability", nil)
			}
			ids = append(ids, id)
		}
		delete(out, argHandles)
	} else {
		for _, h := range c.Handles {
			id, _ := resources.id(h)
			ids = append(ids, id)
		}
	}
	out[argResourceIDs] = encodeJSON(ids)
	return out, nil
}

// checkArgumentNames refuses real resource ids from the caller, and any
// argument whose name is a case variant of a resource argument: an agent
// decoding with encoding/json would read "ResourceId" as resourceId, which
// would let a caller name a resource the capability does not designate.
func checkArgumentNames(in map[string]json.RawMessage) *jsonrpc.Error {
	if _, ok := in[argResourceID]; ok {
		return capErr(jsonrpc.CodeResourceNotPermitted, "resources are named by handle, not by id", nil)
	}
	if _, ok := in[argResourceIDs]; ok {
		return capErr(jsonrpc.CodeResourceNotPermitted, "resources are named by handle, not by id", nil)
	}
	return refuseCaseVariants(in, "argument", argHandle, argHandles, argResourceID, argResourceIDs)
}

// refuseCaseVariants refuses a member whose name differs from one of the
// reserved names only in case. The gateway decides on exact names, but an
// agent decoding with encoding/json matches names case-insensitively and
// would act on the variant as if it were the real member.
func refuseCaseVariants(members map[string]json.RawMessage, what string, reserved ...string) *jsonrpc.Error {
	for k := range members {
		for _, name := range reserved {
			if k != name && strings.EqualFold(k, name) {
				return capErr(jsonrpc.CodeInvalidParams, what+" "+k+" is a case variant of "+name, nil)
			}
		}
	}
	return nil
}

// encodeJSON encodes a string or a list of strings, which always encode.
func encodeJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("a2a front: " + err.Error())
	}
	return b
}
