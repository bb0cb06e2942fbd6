package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

type policyView struct {
	Name     string
	Revision string
	Rules    int
	// HasStatus says the source reports reloads (a policy.Watcher).
	HasStatus bool
	Status    policy.ReloadStatus
	Explain   explainForm
	Result    string
}

// explainForm is the explain form's fields, echoed back into it.
type explainForm struct {
	Principal, Groups, Agent, Grants, Collection, Purpose string
}

// policyPage shows the policy in force, the last reload, and, when the
// form was sent, how the policy decides the request it describes. The
// explanation changes nothing, so the form is a GET.
func (c *Console) policyPage(w http.ResponseWriter, r *http.Request, op operator) {
	p := c.deps.Policy.Current()
	v := policyView{Name: p.Name(), Revision: p.Revision(), Rules: len(p.Rules())}
	if s, ok := c.deps.Policy.(interface{ Status() policy.ReloadStatus }); ok {
		v.HasStatus, v.Status = true, s.Status()
	}
	q := r.URL.Query()
	v.Explain = explainForm{Principal: clip(q.Get("principal")), Groups: clip(q.Get("groups")),
		Agent: clip(q.Get("agent")), Grants: clip(q.Get("grants")), Collection: clip(q.Get("collection")),
		Purpose: clip(q.Get("purpose"))}
	if v.Explain.Principal != "" && v.Explain.Agent != "" && v.Explain.Grants != "" {
		v.Result = p.Explain(r.Context(), v.Explain.input(c.deps.Now()))
	}
	c.render(w, http.StatusOK, "policy", view{Title: "Policy", Nav: "policy", Op: &op, Page: v})
}

func (f explainForm) input(now time.Time) policy.Input {
	in := policy.Input{Principal: policy.Principal{ID: f.Principal, Groups: fields(f.Groups)},
		Agent: f.Agent, Grants: fields(f.Grants), Purpose: f.Purpose, Now: now}
	if f.Collection != "" {
		in.Resource = &policy.ResourceQuery{Collection: f.Collection}
	}
	return in
}

// fields splits a comma- or space-separated list.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
