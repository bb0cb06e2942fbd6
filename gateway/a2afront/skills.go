package a2afront

import (
	"encoding/json"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Where a send names a skill. The gate decides a send by the operation of
// the skill it names, so it reads every place an agent may take the skill
// from, not only the extension's data: the skill member of the request's
// and the message's metadata, of each part's metadata, and of each part's
// data object (v0.3's {"kind":"data","data":{…}}, v1.0's {"data":{…}} and
// the legacy {"type":"data",…} alike). Member names are read as nameIs
// reads them. Every place that names a skill must name the same one, or
// the send is refused: a gate that checked one place while the agent acted
// on another would decide nothing.

// skillPlace is one place a send names a skill, and the skill it names.
type skillPlace struct {
	where, skill string
}

// sendSkill returns the one skill a send names and the path of the
// member that names it (skill "" when it names none), or the refusal of
// two places that disagree or of a skill that is not a string.
func sendSkill(x extData, params map[string]json.RawMessage) (skill, member string, e *jsonrpc.Error) {
	skill, e = x.String(memberSkill)
	if e != nil {
		return "", "", e
	}
	first := skillPlace{where: x.Where[memberSkill], skill: skill}
	member = memberPath(first.where, memberSkill)
	if first.where != inParams {
		first.where += "[extension]"
	}
	named, e := namedSkills(params)
	if e != nil {
		return "", "", e
	}
	for _, p := range named {
		switch {
		case first.skill == "":
			first, member = p, p.where+".skill"
		case p.skill != first.skill:
			return "", "", invalidMember(p.where+".skill",
				fmt.Sprintf("the message names skill %q in %s and %q in %s", first.skill, first.where, p.skill, p.where),
				map[string]any{"detail": "conflicting_skills"})
		}
	}
	return first.skill, member, nil
}

// namedSkills returns every non-empty skill a send's params name outside
// the extension's data. A message that is not an object, or parts that
// are not an array, name nothing here: the agent refuses them.
func namedSkills(params map[string]json.RawMessage) ([]skillPlace, *jsonrpc.Error) {
	var out []skillPlace
	read := func(holder json.RawMessage, where string) *jsonrpc.Error {
		m, ok := jsonrpc.LenientMembers(holder)
		if !ok {
			return nil
		}
		for _, raw := range jsonrpc.LenientLookup(m, memberSkill) {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return invalidMember(where+".skill", where+".skill must be a string", nil)
			}
			if s != "" {
				out = append(out, skillPlace{where: where, skill: s})
			}
		}
		return nil
	}
	var e *jsonrpc.Error
	for _, md := range jsonrpc.LenientLookup(params, "metadata") {
		e = firstErr(e, read(md, "params.metadata"))
	}
	for _, msg := range jsonrpc.LenientLookup(params, "message") {
		m, ok := jsonrpc.LenientMembers(msg)
		if !ok {
			continue
		}
		for _, md := range jsonrpc.LenientLookup(m, "metadata") {
			e = firstErr(e, read(md, "params.message.metadata"))
		}
		for _, raw := range jsonrpc.LenientLookup(m, "parts") {
			e = firstErr(e, eachPart(raw, func(pm map[string]json.RawMessage, where string) *jsonrpc.Error {
				var pe *jsonrpc.Error
				for _, md := range jsonrpc.LenientLookup(pm, "metadata") {
					pe = firstErr(pe, read(md, where+".metadata"))
				}
				for _, data := range jsonrpc.LenientLookup(pm, "data") {
					pe = firstErr(pe, read(data, where+".data"))
				}
				return pe
			}))
		}
	}
	return out, e
}

// eachPart calls fn with the members and the path of each part of parts
// that is an object; parts that are not an array hold none.
func eachPart(parts json.RawMessage, fn func(part map[string]json.RawMessage, where string) *jsonrpc.Error) *jsonrpc.Error {
	var list []json.RawMessage
	if json.Unmarshal(parts, &list) != nil {
		return nil
	}
	var e *jsonrpc.Error
	for i, part := range list {
		if pm, ok := jsonrpc.LenientMembers(part); ok {
			e = firstErr(e, fn(pm, fmt.Sprintf("params.message.parts[%d]", i)))
		}
	}
	return e
}

// firstErr returns a, or b when a is nil.
func firstErr(a, b *jsonrpc.Error) *jsonrpc.Error {
	if a != nil {
		return a
	}
	return b
}
