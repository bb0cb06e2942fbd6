package policy

// traceStep is one rule considered while deciding, for Explain.
type traceStep struct {
	subject string // grant, capability or call
	ref     RuleRef
	desc    string
	who     string
	outcome string // "match" or "skip"
	detail  string
}

// tracer records the steps of one decision. A nil *tracer records nothing,
// so Decide pays for tracing only when Explain asks for it.
type tracer struct {
	steps []traceStep
}

func (t *tracer) add(subject string, h *ruleHead, outcome, detail string) {
	if t == nil {
		return
	}
	t.steps = append(t.steps, traceStep{subject: subject, ref: h.ref(), desc: h.desc,
		who: h.who.String(), outcome: outcome, detail: detail})
}
