package policy

import "context"

// DecideA2E decides which of the requested A2E capabilities (agent_caps of
// a handshake) the principal may negotiate with the host. For every
// capability, deny rules win, then the first allow rule in file order that
// names it; anything else is denied by default. The host still decides among
// the allowed capabilities.
func (p *Policy) DecideA2E(ctx context.Context, in A2EInput) A2EDecision {
	return p.decideA2E(ctx, in, nil, nil)
}

func (p *Policy) decideA2E(ctx context.Context, in A2EInput, tr *tracer, cov *Coverage) A2EDecision {
	d := A2EDecision{Revision: p.revision, Denied: make(map[string]string)}
	vars := &celVars{p: &in.Principal, host: in.Host, capabilities: in.Capabilities, now: in.Now, cov: cov}
	_, knownHost := p.cat.A2EHosts[in.Host]
	for _, c := range dedupe(in.Capabilities) {
		vars.capability = c
		switch {
		case ctx.Err() != nil:
			d.Denied[c] = "decision abandoned: " + ctx.Err().Error()
		case in.Now.IsZero():
			d.Denied[c] = "decision time (Now) is not set"
		case !knownHost:
			d.Denied[c] = "unknown A2E host " + quote(in.Host)
		case !IsA2ECapability(c):
			d.Denied[c] = "unknown A2E capability " + quote(c)
		default:
			if why, ok := p.a2eCapability(ctx, &d, vars, tr); !ok {
				d.Denied[c] = why
				continue
			}
			d.Allowed = append(d.Allowed, c)
		}
	}
	if len(d.Denied) == 0 {
		d.Denied = nil
	}
	return d
}

// a2eCapability decides one capability.
func (p *Policy) a2eCapability(ctx context.Context, d *A2EDecision, v *celVars, tr *tracer) (string, bool) {
	c := v.capability
	for _, r := range p.a2eDeny[v.host] {
		if !r.names(c) || !ruleApplies(ctx, &r.ruleHead, v, c, tr, true) {
			continue
		}
		d.Matched = appendRef(d.Matched, &r.ruleHead)
		return "denied by rule " + quote(r.id), false
	}
	for _, r := range p.a2eAllow[v.host] {
		if !r.names(c) || !ruleApplies(ctx, &r.ruleHead, v, c, tr, false) {
			continue
		}
		d.Matched = appendRef(d.Matched, &r.ruleHead)
		return "", true
	}
	return "no A2E rule allows capability " + quote(c) + " on host " + quote(v.host) +
		" for principal " + quote(v.p.ID) + " (default deny)", false
}

// ruleApplies checks a rule's principals and conditions for one subject.
// A condition that cannot be evaluated makes a deny rule apply (fail
// closed) and an allow rule not apply.
func ruleApplies(ctx context.Context, h *ruleHead, v *celVars, subject string, tr *tracer, deny bool) bool {
	if !h.who.matches(v.p) {
		if tr != nil {
			tr.add(subject, h, "skip", h.who.whyNot(v.p))
		}
		return false
	}
	held, failed, err := evalConditions(ctx, h.conds, v)
	switch {
	case err != nil:
		tr.add(subject, h, outcome(deny), "condition "+quote(failed)+" could not be evaluated: "+err.Error())
		return deny
	case !held:
		if tr != nil {
			tr.add(subject, h, "skip", "condition "+quote(failed)+" is false")
		}
		return false
	}
	tr.add(subject, h, "match", string(h.effect))
	return true
}

func outcome(match bool) string {
	if match {
		return "match"
	}
	return "skip"
}

// DecideAmbient decides a call without a capability (the SEP migration
// path). Only agents marked legacy in the catalog can ever be reached this
// way, and only where an ambient rule allows it: deny rules win, then the
// first matching allow rule; the default is deny.
func (p *Policy) DecideAmbient(ctx context.Context, in AmbientInput) Decision {
	return p.decideAmbient(ctx, in, nil, nil)
}

func (p *Policy) decideAmbient(ctx context.Context, in AmbientInput, tr *tracer, cov *Coverage) Decision {
	d := Decision{Revision: p.revision}
	ac, known := p.cat.Agents[in.Agent]
	deny := func(ruleID, part, text string) Decision {
		d.Reasons = append(d.Reasons, Reason{Rule: ruleID, Part: part, Text: text})
		return d
	}
	switch {
	case ctx.Err() != nil:
		return deny("", PartContext, "decision abandoned: "+ctx.Err().Error())
	case in.Now.IsZero():
		return deny("", PartContext, "decision time (Now) is not set")
	case !known:
		return deny("", PartAgent, "unknown agent "+quote(in.Agent))
	case !ac.Legacy:
		return deny("", PartAgent, "agent "+quote(in.Agent)+" understands capabilities: every call must name a capability")
	}
	v := &celVars{p: &in.Principal, agent: in.Agent, skill: in.Skill, method: in.Method, now: in.Now, cov: cov}
	subject := in.Method + " " + in.Skill
	for _, r := range p.ambDeny[in.Agent] {
		if r.matchesCall(in.Skill, in.Method) && ruleApplies(ctx, &r.ruleHead, v, subject, tr, true) {
			d.Matched = appendRef(d.Matched, &r.ruleHead)
			return deny(r.id, PartDeny, "denied by ambient rule "+quote(r.id))
		}
	}
	for _, r := range p.ambAllow[in.Agent] {
		if r.matchesCall(in.Skill, in.Method) && ruleApplies(ctx, &r.ruleHead, v, subject, tr, false) {
			d.Matched = appendRef(d.Matched, &r.ruleHead)
			d.Allow = true
			d.Reasons = append(d.Reasons, Reason{Rule: r.id, Part: PartSkill, Text: "ambient call allowed by rule " + quote(r.id)})
			return d
		}
	}
	return deny("", PartDefault, "no ambient rule allows "+quote(in.Method)+" of skill "+quote(in.Skill)+
		" on agent "+quote(in.Agent)+" for principal "+quote(in.Principal.ID)+" (default deny)")
}
