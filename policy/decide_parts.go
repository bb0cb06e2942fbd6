package policy

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// exclusion is a resource constraint removed by a deny rule.
type exclusion struct {
	rule string
	c    ResourceConstraint
}

// denyOutcome is what the deny rules left of one grant.
type denyOutcome struct {
	ops      []string
	excluded []exclusion
}

// denyScope says how a deny rule's resources relate to the request.
type denyScope int

const (
	scopeNone    denyScope = iota // disjoint from the request
	scopeWhole                    // covers everything the request asks for
	scopeExclude                  // overlaps: exclude the rule's resources
)

// applyDenies evaluates every deny rule of the grant. denied is true when a
// rule denies the grant outright; otherwise out holds the operations and
// resources the deny rules remove.
func (e *evaluation) applyDenies(g string) (out denyOutcome, denied bool) {
	for _, r := range e.p.deny[e.in.Agent][g] {
		if !e.principalMatches(g, &r.ruleHead) || !e.denyConditionsHold(r, g) {
			continue
		}
		scope := r.scope(e.in.Resource)
		switch {
		case scope == scopeNone:
			if e.tr != nil {
				e.trace(g, &r.ruleHead, "skip", "the request is outside the rule's resources ("+r.res.String()+")")
			}
		case r.ops != nil:
			e.matched(&r.ruleHead)
			out.ops = append(out.ops, r.ops...)
			text := "deny rule " + quote(r.id) + " removes operations " + list(r.ops)
			if scope == scopeExclude {
				text += " everywhere (the request is not limited to its resources " + r.res.String() + ")"
			}
			e.reason(r.id, g, PartDeny, text)
			e.trace(g, &r.ruleHead, "match", text)
		case scope == scopeWhole:
			e.matched(&r.ruleHead)
			e.reason(r.id, g, PartDeny, "denied by rule "+quote(r.id)+e.denyScopeText(r))
			e.trace(g, &r.ruleHead, "match", "denies the grant")
			return out, true
		default:
			e.matched(&r.ruleHead)
			out.excluded = append(out.excluded, exclusion{rule: r.id, c: *r.res})
			e.reason(r.id, g, PartDeny, "deny rule "+quote(r.id)+" excludes "+r.res.String())
			e.trace(g, &r.ruleHead, "match", "excludes "+r.res.String())
		}
	}
	return out, false
}

func (e *evaluation) denyScopeText(r *rule) string {
	if r.res == nil {
		return ""
	}
	return " (request for " + queryConstraint(e.in.Resource).String() + " is inside " + r.res.String() + ")"
}

// denyConditionsHold evaluates a deny rule's conditions; an evaluation
// error counts as a match (fail closed).
func (e *evaluation) denyConditionsHold(r *rule, g string) bool {
	if len(r.conds) == 0 {
		return true
	}
	held, failed, err := evalConditions(e.ctx, r.conds, e.celVars(g))
	if err != nil {
		e.reason(r.id, g, PartCondition, "deny rule "+quote(r.id)+": condition "+quote(failed)+
			" could not be evaluated ("+err.Error()+"); applying the deny rule (fail closed)")
		return true
	}
	if !held && e.tr != nil {
		e.trace(g, &r.ruleHead, "skip", "condition "+quote(failed)+" is false")
	}
	return held
}

// scope relates a deny rule's resources to the request's resource query.
func (r *rule) scope(q *ResourceQuery) denyScope {
	if r.res == nil {
		return scopeWhole
	}
	if q == nil {
		return scopeExclude
	}
	if r.res.Collection != "" && q.Collection != "" && q.Collection != r.res.Collection {
		return scopeNone
	}
	covered := r.res.Collection == "" || q.Collection == r.res.Collection
	for k, vals := range r.res.Filter {
		v, has := q.Filter[k]
		if !has {
			covered = false
			continue
		}
		if !slices.Contains(vals, v) {
			return scopeNone
		}
	}
	if covered {
		return scopeWhole
	}
	return scopeExclude
}

// operations computes grant ∩ rule ∩ request − denied, adding a reason for
// every narrowing. A "*" grant is expanded only to the rule's operations.
func (e *evaluation) operations(r *rule, def Grant, g string, denied []string) []string {
	var ops []string
	switch {
	case def.anyOperation():
		ops = slices.Clone(r.ops)
		e.reason(r.id, g, PartOperations, "grant "+quote(g)+" allows any operation; limited to "+list(ops)+" by rule "+quote(r.id))
	case r.ops != nil:
		ops = intersect(def.Operations, r.ops)
		if len(ops) < len(def.Operations) {
			e.reason(r.id, g, PartOperations, "rule "+quote(r.id)+" allows only "+list(ops)+" of grant "+quote(g)+"'s "+list(def.Operations))
		}
	default:
		ops = slices.Clone(def.Operations)
	}
	if asked := e.in.Operations; len(asked) > 0 {
		mine := asked
		if !def.anyOperation() {
			mine = intersect(dedupe(asked), def.Operations)
		}
		if dropped := minus(mine, ops); len(dropped) > 0 {
			e.reason(r.id, g, PartOperations, "requested operations "+list(dropped)+" of grant "+quote(g)+
				" are not allowed (rule "+quote(r.id)+" allows "+list(ops)+")")
		}
		if kept := intersect(ops, asked); len(kept) < len(ops) {
			e.reason(r.id, g, PartOperations, "narrowed to the requested operations "+list(kept))
			ops = kept
		}
	}
	if removed := intersect(ops, denied); len(removed) > 0 {
		ops = minus(ops, denied)
		e.reason(r.id, g, PartDeny, "operations "+list(removed)+" removed by deny rules")
	}
	if len(ops) == 0 {
		e.reason(r.id, g, PartOperations, "no operation of grant "+quote(g)+" is left to issue under rule "+quote(r.id))
	}
	return ops
}

// intersect returns the elements of a that are in b, in a's order.
func intersect(a, b []string) []string {
	out := make([]string, 0, len(a))
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

// minus returns the elements of a that are not in b, in a's order.
func minus(a, b []string) []string {
	out := make([]string, 0, len(a))
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

// celVars returns the activation for conditions, built once per decision.
func (e *evaluation) celVars(g string) *celVars {
	if e.vars == nil {
		in := e.in
		e.vars = &celVars{p: &in.Principal, agent: in.Agent, grants: in.Grants,
			operations: in.Operations, purpose: in.Purpose, expires: in.Expires, now: in.Now, cov: e.cov}
		if in.Resource != nil {
			e.vars.collection, e.vars.filter = in.Resource.Collection, in.Resource.Filter
		}
	}
	e.vars.grant = g
	return e.vars
}

// reason appends a Reason to the decision.
func (e *evaluation) reason(ruleID, g, part, text string) {
	e.d.Reasons = append(e.d.Reasons, Reason{Rule: ruleID, Grant: g, Part: part, Text: text})
}

// matched records a rule that took effect, once.
func (e *evaluation) matched(h *ruleHead) {
	e.d.Matched = appendRef(e.d.Matched, h)
}

func appendRef(refs []RuleRef, h *ruleHead) []RuleRef {
	for _, m := range refs {
		if m.ID == h.id && m.Effect == h.effect {
			return refs
		}
	}
	return append(refs, h.ref())
}

// trace records a step for Explain when tracing is on.
func (e *evaluation) trace(g string, h *ruleHead, outcome, detail string) {
	e.tr.add(g, h, outcome, detail)
}

func quote(s string) string    { return strconv.Quote(s) }
func itoa(n int) string        { return strconv.Itoa(n) }
func isBlank(s string) bool    { return strings.TrimSpace(s) == "" }
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
