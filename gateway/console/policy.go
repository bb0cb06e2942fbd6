package console

import (
	"net/http"

	"github.com/capgate/capgate/policy"
)

type policyView struct {
	Name     string
	Revision string
	// Rules are the policy's rules as people read them, in file order.
	Rules []policy.RuleSummary
	// HasStatus says the source reports reloads (a policy.Watcher).
	HasStatus bool
	Status    policy.ReloadStatus
	Explain   explainForm
	// FormError says why the form's request could not be explained.
	FormError string
	// Result is the explanation of a grant request, A2E the explanation
	// of an A2E handshake; at most one is set.
	Result *grantExplanation
	A2E    *a2eExplanation
}

// policyPage shows the policy in force, its rules, the last reload, and,
// when the form was sent, how the policy decides the request it
// describes. The explanation changes nothing, so the form is a GET.
func (c *Console) policyPage(w http.ResponseWriter, r *http.Request, op operator) {
	p := c.deps.Policy.Current()
	v := policyView{Name: p.Name(), Revision: p.Revision(), Rules: p.Summaries()}
	if s, ok := c.deps.Policy.(interface{ Status() policy.ReloadStatus }); ok {
		v.HasStatus, v.Status = true, s.Status()
	}
	v.Explain = readExplainForm(r.URL.Query())
	status := http.StatusOK
	if v.Explain.sent() {
		var err error
		if v.Result, v.A2E, err = v.Explain.explain(r.Context(), p, c.deps.Now()); err != nil {
			v.FormError, status = err.Error(), http.StatusBadRequest
		}
	}
	c.render(w, status, "policy", view{Title: "Policy", Nav: "policy", Op: &op, Page: v})
}
