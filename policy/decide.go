package policy

import (
	"context"
	"slices"
	"time"
)

// Decide computes what may be issued for one capability request: for every
// requested grant, the intersection of what the grant permits, what the
// caller asked for and what the policy allows. Deny rules are checked across
// all matching rules and win; among allow rules the first match in file
// order decides each grant; anything no rule allows is denied. A denial is
// a Decision with Allow false and Reasons naming the rule and why; Decide
// never returns an error and never panics on caller input.
func (p *Policy) Decide(ctx context.Context, in Input) Decision {
	return p.decide(ctx, in, nil, nil)
}

// evaluation is the state of one Decide call.
type evaluation struct {
	ctx   context.Context
	p     *Policy
	in    *Input
	d     *Decision
	tr    *tracer
	cov   *Coverage
	vars  *celVars
	agent AgentCatalog
}

func (p *Policy) decide(ctx context.Context, in Input, tr *tracer, cov *Coverage) Decision {
	d := Decision{Revision: p.revision}
	e := &evaluation{ctx: ctx, p: p, in: &in, d: &d, tr: tr, cov: cov}
	if !e.precheck() {
		return d
	}
	var issued []GrantDecision
	for _, g := range dedupe(in.Grants) {
		if gd, ok := e.decideGrant(g); ok {
			issued = append(issued, gd)
		}
	}
	d.Grants = e.applyRequires(issued)
	d.Allow = len(d.Grants) > 0
	e.foreignOperations()
	return d
}

// foreignOperations explains requested operations that no requested grant
// defines (they can never be issued).
func (e *evaluation) foreignOperations() {
	for _, op := range dedupe(e.in.Operations) {
		defined := false
		for _, g := range e.in.Grants {
			def := e.agent.Grants[g]
			defined = defined || def.anyOperation() || slices.Contains(def.Operations, op)
		}
		if !defined {
			e.reason("", "", PartOperations, "requested operation "+quote(op)+" is not part of any requested grant")
		}
	}
}

// precheck denies requests that no rule could satisfy.
func (e *evaluation) precheck() bool {
	in := e.in
	switch ac, ok := e.p.cat.Agents[in.Agent]; {
	case e.ctx.Err() != nil:
		e.reason("", "", PartContext, "decision abandoned: "+e.ctx.Err().Error())
	case in.Now.IsZero():
		e.reason("", "", PartContext, "decision time (Now) is not set")
	case !ok:
		e.reason("", "", PartAgent, "unknown agent "+quote(in.Agent))
	case len(in.Grants) == 0:
		e.reason("", "", PartGrant, "the request names no grant")
	case !in.Expires.IsZero() && in.Expires.Unix() <= in.Now.Unix():
		// Token times are whole seconds: an expiry within the current
		// second would mint a capability that is born expired.
		e.reason("", "", PartExpires, "requested expiry "+stamp(in.Expires)+" is not after now ("+stamp(in.Now)+")")
	default:
		e.agent = ac
		return true
	}
	return false
}

// decideGrant decides one grant; ok is false when it is denied.
func (e *evaluation) decideGrant(g string) (GrantDecision, bool) {
	def, known := e.agent.Grants[g]
	if !known {
		e.reason("", g, PartGrant, "agent "+quote(e.in.Agent)+" has no grant "+quote(g))
		return GrantDecision{}, false
	}
	deny, denied := e.applyDenies(g)
	if denied {
		return GrantDecision{}, false
	}
	r, res, ok := e.firstAllow(g)
	if !ok {
		return GrantDecision{}, false
	}
	ops := e.operations(r, def, g, deny.ops)
	if len(ops) == 0 {
		return GrantDecision{}, false
	}
	for _, ex := range deny.excluded {
		if ex.c.Covers(res) {
			e.reason(ex.rule, g, PartDeny, "deny rule "+quote(ex.rule)+" excludes every resource rule "+
				quote(r.id)+" allows ("+res.String()+")")
			return GrantDecision{}, false
		}
	}
	e.matched(&r.ruleHead)
	gd := GrantDecision{Grant: g, Rule: r.id, Operations: ops, Resource: res,
		MaxDepth: r.maxDepth, Attenuable: def.Attenuable}
	for _, ex := range deny.excluded {
		gd.Excluded = append(gd.Excluded, ex.c)
	}
	gd.Expires = e.expiry(r, g)
	e.reason(r.id, g, PartDepth, "delegation depth limited to "+itoa(r.maxDepth)+" by rule "+quote(r.id))
	gd.Approval = e.approval(r, &gd)
	return gd, true
}

// firstAllow returns the first allow rule in file order that matches, with
// the resource constraint rule ∩ request. When none matches it records the
// near misses (rules for this principal that failed on something else) and
// the default deny.
func (e *evaluation) firstAllow(g string) (*rule, ResourceConstraint, bool) {
	var misses []Reason
	for _, r := range e.p.allow[e.in.Agent][g] {
		if !e.principalMatches(g, &r.ruleHead) {
			continue
		}
		if miss, ok := e.allowMiss(r, g); !ok {
			misses = append(misses, miss)
			e.trace(g, &r.ruleHead, "skip", miss.Text)
			continue
		}
		res, narrowed, why, ok := intersectResource(r.res, e.in.Resource)
		if !ok {
			misses = append(misses, Reason{Rule: r.id, Grant: g, Part: PartResource, Text: "rule " + quote(r.id) + " does not apply: " + why})
			e.trace(g, &r.ruleHead, "skip", why)
			continue
		}
		if miss, ok := e.conditionsHold(r, g); !ok {
			misses = append(misses, miss)
			e.trace(g, &r.ruleHead, "skip", miss.Text)
			continue
		}
		e.trace(g, &r.ruleHead, "match", "first matching allow rule")
		if narrowed {
			e.reason(r.id, g, PartResource, "resources limited to "+res.String()+" by rule "+quote(r.id))
		}
		return r, res, true
	}
	e.d.Reasons = append(e.d.Reasons, misses...)
	e.reason("", g, PartDefault, "no allow rule for grant "+quote(g)+" on agent "+quote(e.in.Agent)+
		" matches principal "+quote(e.in.Principal.ID)+" (default deny)")
	return nil, ResourceConstraint{}, false
}

// allowMiss checks the cheap, non-resource requirements of an allow rule.
func (e *evaluation) allowMiss(r *rule, g string) (Reason, bool) {
	if r.requirePurpose && isBlank(e.in.Purpose) {
		return Reason{Rule: r.id, Grant: g, Part: PartPurpose, Text: "rule " + quote(r.id) + " requires a purpose and the request states none"}, false
	}
	return Reason{}, true
}

// conditionsHold evaluates an allow rule's conditions; an evaluation error
// means the rule does not match.
func (e *evaluation) conditionsHold(r *rule, g string) (Reason, bool) {
	if len(r.conds) == 0 {
		return Reason{}, true
	}
	held, failed, err := evalConditions(e.ctx, r.conds, e.celVars(g))
	switch {
	case err != nil:
		return Reason{Rule: r.id, Grant: g, Part: PartCondition, Text: "rule " + quote(r.id) + ": condition " + quote(failed) + " could not be evaluated: " + err.Error()}, false
	case !held:
		return Reason{Rule: r.id, Grant: g, Part: PartCondition, Text: "rule " + quote(r.id) + ": condition " + quote(failed) + " is false"}, false
	}
	return Reason{}, true
}

// principalMatches checks a rule's principals matcher, tracing a mismatch.
func (e *evaluation) principalMatches(g string, h *ruleHead) bool {
	if h.who.matches(&e.in.Principal) {
		return true
	}
	if e.tr != nil {
		e.trace(g, h, "skip", h.who.whyNot(&e.in.Principal))
	}
	return false
}

// expiry computes min(requested, now + max_ttl), where max_ttl is the
// rule's, or the gateway's ceiling (Input.MaxTTL) when that is lower.
func (e *evaluation) expiry(r *rule, g string) time.Time {
	limit := e.in.Now.Add(r.maxTTL)
	ttl := r.maxTTL.String() + " (" + r.ttlFrom + ") of rule " + quote(r.id)
	if e.in.MaxTTL > 0 && e.in.MaxTTL < r.maxTTL {
		limit = e.in.Now.Add(e.in.MaxTTL)
		ttl = e.in.MaxTTL.String() + " (the gateway's ceiling, below rule " + quote(r.id) + "'s)"
	}
	switch {
	case e.in.Expires.IsZero():
		e.reason(r.id, g, PartExpires, "no expiry requested: expires at now + max_ttl "+ttl+" = "+stamp(limit))
		return limit
	case e.in.Expires.After(limit):
		e.reason(r.id, g, PartExpires, "requested expiry "+stamp(e.in.Expires)+" capped to "+stamp(limit)+" by max_ttl "+ttl)
		return limit
	}
	return e.in.Expires
}

// applyRequires denies, until nothing changes, every issued grant whose
// required grants are not issued in the same decision.
func (e *evaluation) applyRequires(issued []GrantDecision) []GrantDecision {
	for changed := true; changed; {
		changed = false
		for i, gd := range issued {
			missing := e.missingRequirement(gd.Grant, issued)
			if missing == "" {
				continue
			}
			e.reason(gd.Rule, gd.Grant, PartRequires, "grant "+quote(gd.Grant)+" requires "+quote(missing)+
				", which this decision does not issue (request both)")
			issued = slices.Delete(issued, i, i+1)
			changed = true
			break
		}
	}
	return issued
}

// missingRequirement returns the first required grant of g not in issued.
func (e *evaluation) missingRequirement(g string, issued []GrantDecision) string {
	for _, req := range e.agent.Grants[g].Requires {
		if !slices.ContainsFunc(issued, func(o GrantDecision) bool { return o.Grant == req }) {
			return req
		}
	}
	return ""
}
