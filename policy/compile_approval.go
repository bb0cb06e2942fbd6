package policy

import (
	"strings"
	"time"

	"cel.dev/cel-go/cel"
)

// approval compiles an allow rule's approval section; nil means none.
func (c *compiler) approval(path string, effect Effect, raw *rawApproval) *approvalSpec {
	if raw == nil {
		return nil
	}
	if effect != EffectAllow {
		c.ps.add(path, ErrInvalidRule, "approval only applies to allow rules")
		return nil
	}
	out := &approvalSpec{wait: DefaultApprovalWait}
	out.approvers = c.approvers(path+".approvers", raw.Approvers)
	if raw.Wait != "" {
		out.wait = c.wait(path+".wait", raw.Wait)
	}
	env, err := c.env.Extend(
		cel.Variable("request.ttl", cel.DurationType),
		cel.Variable("request.depth", cel.IntType),
	)
	if err != nil {
		c.ps.add(path+".when", ErrBadCondition, "approval conditions: %v", err)
		return out
	}
	out.when = compileConditions(env, c.ps, path+".when", raw.When)
	return out
}

// approvers validates the approvers; they must name someone.
func (c *compiler) approvers(path string, raw *rawApprovers) Approvers {
	if raw == nil || len(raw.IDs)+len(raw.Groups) == 0 {
		c.ps.add(path, ErrMissingField, "approval needs approvers (ids or groups)")
		return Approvers{}
	}
	for name, vals := range map[string][]string{"ids": raw.IDs, "groups": raw.Groups} {
		for i, v := range vals {
			if strings.TrimSpace(v) == "" || v == "*" {
				c.ps.add(itemPath(path+"."+name, i), ErrBadMatcher, "approvers.%s must name someone (found %q)", name, v)
			}
		}
	}
	return Approvers{IDs: dedupe(raw.IDs), Groups: dedupe(raw.Groups)}
}

// wait parses how long a request may wait for approval.
func (c *compiler) wait(path, s string) time.Duration {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		c.ps.add(path, ErrBadWait, "wait %q is not a Go duration (for example 30m or 4h): %v", s, err)
	case d <= 0 || d > MaxApprovalWait:
		c.ps.add(path, ErrBadWait, "wait %q must be positive and at most %s", s, MaxApprovalWait)
	default:
		return d
	}
	return DefaultApprovalWait
}

// approval decides whether the grant gd, issued by rule r, waits for human
// approval: the rule has an approval section and every `when` condition
// holds. A condition that cannot be evaluated counts as holding: when in
// doubt, a human decides.
func (e *evaluation) approval(r *rule, gd *GrantDecision) *Approval {
	spec := r.approval
	if spec == nil {
		return nil
	}
	if len(spec.when) > 0 {
		vars := e.celVars(gd.Grant)
		vars.ttl, vars.depth = gd.Expires.Sub(e.in.Now), gd.MaxDepth
		held, failed, err := evalConditions(e.ctx, spec.when, vars)
		vars.ttl, vars.depth = 0, 0
		if !held && err == nil {
			e.reason(r.id, gd.Grant, PartApproval, "no approval needed: condition "+quote(failed)+" of rule "+quote(r.id)+" is false")
			return nil
		}
	}
	a := &Approval{Rule: r.id, Approvers: spec.approvers, Wait: spec.wait}
	e.reason(r.id, gd.Grant, PartApproval, "needs approval by "+a.Approvers.String()+" (rule "+quote(r.id)+"), waiting at most "+a.Wait.String())
	return a
}
