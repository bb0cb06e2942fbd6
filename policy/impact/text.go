package impact

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText renders r for humans: a summary, then the changes grouped by
// rule in aligned columns, then the conditions the universe did not cover.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "policy diff: old revision %s -> new revision %s\n", r.Old, r.New)
	fmt.Fprintf(&b, "universe: %d principals, %d decisions under each policy\n", r.Principals, r.Decisions)
	fmt.Fprintf(&b, "result: %d widening(s), %d narrowing(s)\n", r.Count(Widens), r.Count(Narrows))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	group := ""
	for _, c := range r.Changes {
		if g := c.RuleIn + " " + c.Rule; g != group {
			group = g
			tw.Flush()
			fmt.Fprintf(&b, "\n%s\n", ruleTitle(c))
		}
		mark := "+ WIDENS "
		if c.Direction == Narrows {
			mark = "- narrows"
		}
		fmt.Fprintf(&b, "  %s  %s: %s\n", mark, c.Subject, c.What)
		who := make([]string, len(c.Principals))
		for i, p := range c.Principals {
			who[i] = DescribePrincipal(p)
		}
		fmt.Fprintf(&b, "             for %s\n", sample(who, 4, "principal"))
		if len(c.Requests) > 0 {
			fmt.Fprintf(&b, "             on  %s\n", sample(c.Requests, 3, "request"))
		}
	}
	if len(r.Changes) == 0 {
		b.WriteString("\nno decision differs.\n")
	}
	if len(r.Uncovered) > 0 {
		b.WriteString("\nconditions not decided both true and false (a difference they guard may be missed):\n")
		for _, u := range r.Uncovered {
			fmt.Fprintf(tw, "  %s\t%s\trule %s\t%s\t%s\n", u.In, u.Pos, u.Rule, u.Source, coverageText(u))
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ruleTitle(c Change) string {
	switch c.RuleIn {
	case "new":
		return "rule " + c.Rule + " (new policy)"
	case "old":
		if c.Rule == "" {
			return "default deny"
		}
		return "rule " + c.Rule + " (old policy; the new policy no longer issues what it did)"
	}
	return "rule " + c.Rule
}

func coverageText(u Uncovered) string {
	s := fmt.Sprintf("true %d, false %d, errors %d", u.True, u.False, u.Errors)
	if u.Approval {
		s = "approval condition; " + s
	}
	return s
}

// sample lists the first n of items, then how many more there are.
func sample(items []string, n int, what string) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more %ss (--json lists all)", strings.Join(items[:n], "; "), len(items)-n, what)
}
