package console

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

// explainForm is the policy page's explain form, echoed back into it: the
// request `capgate policy explain` describes with its flags.
type explainForm struct {
	Principal, Issuer, Groups, Claims     string
	Agent, Grants, Operations, Collection string
	Filters, Purpose, Expires, Now        string
	// Host and Capabilities describe an A2E handshake instead of a grant
	// request.
	Host, Capabilities string
}

// errExplainForm is the class of the form's errors.
var errExplainForm = errors.New("cannot explain")

func readExplainForm(q url.Values) explainForm {
	g := func(k string) string { return strings.TrimSpace(clip(q.Get(k))) }
	return explainForm{Principal: g("principal"), Issuer: g("issuer"), Groups: g("groups"), Claims: g("claims"),
		Agent: g("agent"), Grants: g("grants"), Operations: g("operations"), Collection: g("collection"),
		Filters: g("filters"), Purpose: g("purpose"), Expires: g("expires"), Now: g("now"),
		Host: g("host"), Capabilities: g("capabilities")}
}

// sent reports whether the form asks for an explanation.
func (f explainForm) sent() bool {
	return f.Principal != "" || f.Agent != "" || f.Grants != "" || f.Host != ""
}

// grantExplanation is a grant request's decision, for the page.
type grantExplanation struct {
	Decision policy.Decision
	// Trace is the rule-by-rule explanation `capgate policy explain` prints.
	Trace string
}

// a2eExplanation is an A2E handshake's decision, for the page.
type a2eExplanation struct {
	Decision policy.A2EDecision
	// Denied lists the refused capabilities with the reason, in request
	// order.
	Denied [][2]string
	Trace  string
}

// explain decides the form's request under p at now (or the form's time).
func (f explainForm) explain(ctx context.Context, p *policy.Policy, now time.Time) (*grantExplanation, *a2eExplanation, error) {
	who, at, err := f.principal(now)
	if err != nil {
		return nil, nil, err
	}
	if f.Host != "" {
		in := policy.A2EInput{Principal: who, Host: f.Host, Capabilities: fields(f.Capabilities), Now: at}
		if len(in.Capabilities) == 0 {
			return nil, nil, fmt.Errorf("%w: an A2E handshake needs the capabilities it asks for", errExplainForm)
		}
		e := &a2eExplanation{Decision: p.DecideA2E(ctx, in), Trace: p.ExplainA2E(ctx, in)}
		for _, c := range in.Capabilities {
			if why, ok := e.Decision.Denied[c]; ok {
				e.Denied = append(e.Denied, [2]string{c, why})
			}
		}
		return nil, e, nil
	}
	in, err := f.input(who, at)
	if err != nil {
		return nil, nil, err
	}
	return &grantExplanation{Decision: p.Decide(ctx, in), Trace: p.Explain(ctx, in)}, nil, nil
}

// principal builds the principal and the decision time.
func (f explainForm) principal(now time.Time) (policy.Principal, time.Time, error) {
	who := policy.Principal{ID: f.Principal, Issuer: f.Issuer, Groups: fields(f.Groups)}
	if who.ID == "" {
		return who, now, fmt.Errorf("%w: the principal is required", errExplainForm)
	}
	claims, err := keyValues("claims", f.Claims)
	if err != nil {
		return who, now, err
	}
	if len(claims) > 0 {
		who.Claims = make(map[string]any, len(claims))
		for k, v := range claims {
			who.Claims[k] = v
		}
	}
	if f.Now != "" {
		if now, err = time.Parse(time.RFC3339, f.Now); err != nil {
			return who, now, fmt.Errorf("%w: the decision time %q is not RFC 3339", errExplainForm, f.Now)
		}
	}
	return who, now, nil
}

// input builds the capability request.
func (f explainForm) input(who policy.Principal, now time.Time) (policy.Input, error) {
	in := policy.Input{Principal: who, Agent: f.Agent, Grants: fields(f.Grants), Operations: fields(f.Operations),
		Purpose: f.Purpose, Now: now}
	if in.Agent == "" || len(in.Grants) == 0 {
		return in, fmt.Errorf("%w: a grant request needs the agent and at least one grant (or an A2E host and capabilities)", errExplainForm)
	}
	filter, err := keyValues("filters", f.Filters)
	if err != nil {
		return in, err
	}
	if f.Collection != "" || len(filter) > 0 {
		in.Resource = &policy.ResourceQuery{Collection: f.Collection, Filter: filter}
	}
	if f.Expires != "" {
		if t, err := time.Parse(time.RFC3339, f.Expires); err == nil {
			in.Expires = t
		} else if d, err := time.ParseDuration(f.Expires); err == nil && d > 0 {
			in.Expires = now.Add(d)
		} else {
			return in, fmt.Errorf("%w: the expiry %q is neither an RFC 3339 time nor a positive duration (30m)", errExplainForm, f.Expires)
		}
	}
	return in, nil
}

// keyValues parses "k=v, k2=v2".
func keyValues(name, s string) (map[string]string, error) {
	kvs := fields(s)
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: %s: %q is not key=value", errExplainForm, name, kv)
		}
		out[k] = v
	}
	return out, nil
}

// fields splits a comma- or space-separated list.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
