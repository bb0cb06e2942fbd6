package policy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
)

// Limits on CEL conditions. A condition is written by the security team, but
// a policy file is still input: its parse size and its runtime cost are
// bounded so that no condition can stall the request path.
const (
	// MaxConditionLength bounds a condition's source, in code points.
	MaxConditionLength = 2048
	// ConditionCostLimit bounds a condition's runtime cost, in CEL cost units.
	ConditionCostLimit = 10000
)

// condition is one compiled CEL condition.
type condition struct {
	src string
	pos string // file:line:col, the key of Coverage
	prg cel.Program
}

// newCELEnv declares the variables a condition may read. Names are declared
// as qualified identifiers (principal.id, request.grant, ...), so a typo such
// as principal.grops fails to compile instead of failing at request time.
func newCELEnv() (*cel.Env, error) {
	str, strs := cel.StringType, cel.ListType(cel.StringType)
	return cel.NewEnv(
		cel.Variable("principal.id", str),
		cel.Variable("principal.issuer", str),
		cel.Variable("principal.groups", strs),
		cel.Variable("principal.claims", cel.MapType(str, cel.DynType)),
		cel.Variable("request.agent", str),
		cel.Variable("request.grant", str),
		cel.Variable("request.grants", strs),
		cel.Variable("request.operations", strs),
		cel.Variable("request.collection", str),
		cel.Variable("request.filter", cel.MapType(str, str)),
		cel.Variable("request.purpose", str),
		cel.Variable("request.expires", cel.TimestampType),
		cel.Variable("request.skill", str),
		cel.Variable("request.method", str),
		cel.Variable("request.host", str),
		cel.Variable("request.capability", str),
		cel.Variable("request.capabilities", strs),
		cel.Variable("now", cel.TimestampType),
		cel.ParserExpressionSizeLimit(MaxConditionLength),
		cel.ParserRecursionLimit(64),
	)
}

// compileConditions compiles srcs, recording a problem for each condition
// that fails to compile or is not bool-typed.
func compileConditions(env *cel.Env, ps *problems, path string, srcs []string) []condition {
	var out []condition
	for i, src := range srcs {
		p := fmt.Sprintf("%s[%d]", path, i)
		if strings.TrimSpace(src) == "" {
			ps.add(p, ErrBadCondition, "empty condition")
			continue
		}
		ast, iss := env.Compile(src)
		if iss != nil && iss.Err() != nil {
			for _, e := range iss.Errors() {
				ps.add(p, ErrBadCondition, "condition %q: %s (expression column %d)",
					src, e.Message, e.Location.Column()+1)
			}
			continue
		}
		if !ast.OutputType().IsExactType(cel.BoolType) {
			ps.add(p, ErrConditionType, "condition %q has type %s; it must be bool", src, ast.OutputType())
			continue
		}
		prg, err := env.Program(ast, cel.CostLimit(ConditionCostLimit), cel.InterruptCheckFrequency(64))
		if err != nil {
			ps.add(p, ErrBadCondition, "condition %q: %v", src, err)
			continue
		}
		out = append(out, condition{src: src, pos: ps.pos(ps.node(p)), prg: prg})
	}
	return out
}

// celVars is the activation a condition sees. It resolves names with a
// switch instead of building a map per request.
type celVars struct {
	p            *Principal
	agent        string
	grant        string
	grants       []string
	operations   []string
	collection   string
	filter       map[string]string
	purpose      string
	expires      time.Time
	skill        string
	method       string
	host         string
	capability   string
	capabilities []string
	now          time.Time
	ttl          time.Duration // approval conditions only
	depth        int           // approval conditions only
	cov          *Coverage     // nil unless the caller measures coverage
}

var _ interpreter.Activation = (*celVars)(nil)

// ResolveName implements interpreter.Activation.
func (v *celVars) ResolveName(name string) (any, bool) {
	switch name {
	case "principal.id":
		return v.p.ID, true
	case "principal.issuer":
		return v.p.Issuer, true
	case "principal.groups":
		return nonNil(v.p.Groups), true
	case "principal.claims":
		if v.p.Claims == nil {
			return map[string]any{}, true
		}
		return v.p.Claims, true
	case "now":
		return v.now, true
	}
	return v.resolveRequest(name)
}

func (v *celVars) resolveRequest(name string) (any, bool) {
	switch name {
	case "request.agent":
		return v.agent, true
	case "request.grant":
		return v.grant, true
	case "request.grants":
		return nonNil(v.grants), true
	case "request.operations":
		return nonNil(v.operations), true
	case "request.collection":
		return v.collection, true
	case "request.filter":
		if v.filter == nil {
			return map[string]string{}, true
		}
		return v.filter, true
	case "request.purpose":
		return v.purpose, true
	case "request.expires":
		return v.expires, true
	case "request.skill":
		return v.skill, true
	case "request.method":
		return v.method, true
	case "request.host":
		return v.host, true
	case "request.capability":
		return v.capability, true
	case "request.capabilities":
		return nonNil(v.capabilities), true
	case "request.ttl":
		return v.ttl, true
	case "request.depth":
		return v.depth, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (v *celVars) Parent() interpreter.Activation { return nil }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// evalConditions evaluates every condition in order. held is true when all
// of them hold; otherwise failed is the first condition that was false or
// that could not be evaluated (err). Callers decide how to treat err: an
// allow rule does not match, a deny rule matches (fail closed).
func evalConditions(ctx context.Context, conds []condition, vars *celVars) (held bool, failed string, err error) {
	for _, c := range conds {
		out, _, err := c.prg.ContextEval(ctx, vars)
		if err != nil {
			vars.cov.record(c.pos, condError)
			return false, c.src, err
		}
		if b, ok := out.(types.Bool); !ok || !bool(b) {
			vars.cov.record(c.pos, condFalse)
			return false, c.src, nil
		}
		vars.cov.record(c.pos, condTrue)
	}
	return true, "", nil
}
