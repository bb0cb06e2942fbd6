package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
)

// compiler turns the raw document into compiled rules, validating every
// name against the catalog and recording every problem it meets.
type compiler struct {
	ps           *problems
	env          *cel.Env
	cat          Catalog
	defaultTTL   time.Duration
	ttlFrom      string
	defaultDepth int
}

func (c *compiler) version(v *int) {
	switch {
	case v == nil:
		c.ps.add("version", ErrVersion, "version is required (write `version: 1`)")
	case *v != 1:
		c.ps.add("version", ErrVersion, "version %d is not supported (only version 1)", *v)
	}
}

func (c *compiler) defaults(d *rawDefaults) {
	c.defaultTTL, c.ttlFrom, c.defaultDepth = DefaultMaxTTL, "built-in default", DefaultMaxDelegationDepth
	if d == nil {
		return
	}
	if d.MaxTTL != "" {
		if ttl, ok := c.ttl("defaults.max_ttl", d.MaxTTL); ok {
			c.defaultTTL, c.ttlFrom = ttl, "defaults.max_ttl"
		}
	}
	if d.MaxDelegationDepth != nil {
		c.defaultDepth = c.depth("defaults.max_delegation_depth", *d.MaxDelegationDepth)
	}
}

// ttl parses a positive Go duration.
func (c *compiler) ttl(path, s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	if err != nil {
		c.ps.add(path, ErrBadTTL, "max_ttl %q is not a Go duration (for example 15m or 1h): %v", s, err)
		return 0, false
	}
	if d <= 0 {
		c.ps.add(path, ErrBadTTL, "max_ttl %q must be positive", s)
		return 0, false
	}
	return d, true
}

func (c *compiler) depth(path string, n int) int {
	if n < 0 {
		c.ps.add(path, ErrBadDepth, "max_delegation_depth %d must not be negative", n)
		return 0
	}
	return n
}

// head compiles what every rule kind shares. ids holds the ids seen so far
// in the section.
func (c *compiler) head(path string, ids map[string]string, id, desc, effect string,
	who *rawPrincipals, conds []string) ruleHead {
	h := ruleHead{id: id, desc: desc, path: path, pos: c.ps.pos(c.ps.node(path))}
	switch {
	case strings.TrimSpace(id) == "":
		c.ps.add(path+".id", ErrMissingField, "rule id is required")
	case ids[id] != "":
		c.ps.add(path+".id", ErrDuplicateRule, "rule id %q is already used at %s", id, ids[id])
	default:
		ids[id] = h.pos
	}
	switch effect {
	case "", "allow":
		h.effect = EffectAllow
	case "deny":
		h.effect = EffectDeny
	default:
		c.ps.add(path+".effect", ErrBadEffect, "effect %q must be allow or deny", effect)
		h.effect = EffectDeny
	}
	h.who = compileMatcher(c.ps, path+".principals", who)
	h.conds = compileConditions(c.env, c.ps, path+".conditions", conds)
	return h
}

// required reports a missing list.
func (c *compiler) required(path string, vals []string, what string) bool {
	if len(vals) == 0 {
		c.ps.add(path, ErrMissingField, "%s is required", what)
		return false
	}
	return true
}

// wildcard checks that "*" stands alone in a list and reports whether it is there.
func (c *compiler) wildcard(path string, vals []string) bool {
	if !slices.Contains(vals, "*") {
		return false
	}
	if len(vals) > 1 {
		c.ps.add(path, ErrInvalidRule, `"*" must be the only entry of the list`)
	}
	return true
}

// names lists the keys of a map for error messages.
func names[V any](m map[string]V) string {
	return list(sortedKeys(m))
}

// itemPath returns the path of the i-th element of a list field.
func itemPath(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// resources compiles a resource constraint; nil means none.
func (c *compiler) resources(path string, r *rawResources) *ResourceConstraint {
	if r == nil {
		return nil
	}
	out := &ResourceConstraint{Collection: strings.TrimSpace(r.Collection)}
	if out.Collection == "" && len(r.Filter) == 0 {
		c.ps.add(path, ErrMissingField, "resources names neither a collection nor a filter")
	}
	for k, vals := range r.Filter {
		if len(vals) == 0 {
			c.ps.add(path+".filter."+k, ErrMissingField, "filter %q lists no value and would match nothing", k)
			continue
		}
		if out.Filter == nil {
			out.Filter = make(map[string][]string, len(r.Filter))
		}
		out.Filter[k] = slices.Clone([]string(vals))
	}
	return out
}
