// Package replay re-decides the decisions an audit trail records under a
// candidate policy and lists those that would change.
//
// It reads the canonical trail (or an OCSF one, from the canonical event
// each record keeps). A capability.issue event that records the request
// (the request member: issuer, groups, the claims the policy named,
// operations, resource query, expiry and the gateway's ceiling) is
// decided again at its own time; its outcome, issued or denied, and the
// rules that decided it are compared. Attenuations, delegations and
// invocations do not consult the policy: each follows the issuance of its
// root capability, so one whose root would now be denied would now be
// refused. What cannot be replayed is listed, never guessed: issue events
// written before events carried the request (older trails), attenuations
// and invocations whose root was issued before the trail starts, and A2E
// handshakes, whose events do not record the principal's groups.
// Decisions that did not come from the policy (rate limits, store
// failures, freezes) are skipped.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

// Change is one recorded decision that the candidate decides otherwise.
type Change struct {
	// Line, Chain and Seq place the event in the trail.
	Line  int    `json:"line"`
	Chain string `json:"chain"`
	Seq   uint64 `json:"seq"`
	Event string `json:"event"`
	// Principal, Agent and Grants say what was decided.
	Principal string   `json:"principal"`
	Agent     string   `json:"agent,omitempty"`
	Grants    []string `json:"grants,omitempty"`
	// Was is the recorded outcome, Now the candidate's.
	Was string `json:"was"`
	Now string `json:"now"`
	// Why says what the candidate decided, or which issuance it follows.
	Why string `json:"why"`
}

// Lack is an event that records a decision but not enough to replay it.
type Lack struct {
	Line  int    `json:"line"`
	Chain string `json:"chain"`
	Seq   uint64 `json:"seq"`
	Event string `json:"event"`
	Why   string `json:"why"`
}

// Report is a replay's outcome.
type Report struct {
	// Revision is the candidate's.
	Revision string `json:"revision"`
	// Events counts the trail's events; Replayed the decisions re-decided
	// (issuances) or followed (uses of a capability whose issuance was).
	Events   int      `json:"events"`
	Replayed int      `json:"replayed"`
	Changes  []Change `json:"changes"`
	Lacking  []Lack   `json:"lacking"`
}

// root is what the replay knows of one capability: the issuance it
// descends from and whether the candidate would still issue it.
type root struct {
	issueLine int
	issued    bool
}

// replayer holds a replay's state.
type replayer struct {
	pol   *policy.Policy
	rep   Report
	roots map[string]root // capability id → its root's issuance
}

// Replay reads a trail from r and re-decides it under pol.
func Replay(ctx context.Context, r io.Reader, pol *policy.Policy) (Report, error) {
	p := &replayer{pol: pol, rep: Report{Revision: pol.Revision(), Changes: []Change{}, Lacking: []Lack{}}, roots: map[string]root{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		ev, err := parse(sc.Bytes())
		if err != nil {
			return p.rep, fmt.Errorf("line %d: %w", line, err)
		}
		p.rep.Events++
		p.event(ctx, line, ev)
	}
	if err := sc.Err(); err != nil {
		return p.rep, fmt.Errorf("line %d: %w", line+1, err)
	}
	return p.rep, nil
}

// event is one parsed audit event.
type event map[string]any

// parse reads a canonical line, or the canonical event of an OCSF record.
func parse(b []byte) (event, error) {
	var ev event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("not a JSON audit event: %w", err)
	}
	if _, ok := ev["event"]; !ok {
		if u, ok := ev["unmapped"].(map[string]any); ok {
			if c, ok := u["capgate"].(map[string]any); ok {
				ev = c
			}
		}
	}
	if ev.str("event") == "" || ev.str("chain") == "" {
		return nil, fmt.Errorf("not an audit event: no event or chain")
	}
	return ev, nil
}

func (e event) str(k string) string {
	s, _ := e[k].(string)
	return s
}

func (e event) strs(k string) []string {
	var out []string
	list, _ := e[k].([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (e event) seq() uint64 {
	f, _ := e["seq"].(float64)
	return uint64(f)
}

// event dispatches one event by name.
func (p *replayer) event(ctx context.Context, line int, ev event) {
	switch ev.str("event") {
	case "capability.issue":
		p.issue(ctx, line, ev)
	case "capability.attenuate", "capability.delegate":
		p.derive(line, ev)
	case "capability.invoke", "capability.message":
		p.use(line, ev)
	case "a2e.handshake":
		p.lack(line, ev, "A2E handshake events do not record the principal's groups")
	}
}

func (p *replayer) lack(line int, ev event, why string) {
	p.rep.Lacking = append(p.rep.Lacking, Lack{Line: line, Chain: ev.str("chain"), Seq: ev.seq(), Event: ev.str("event"), Why: why})
}

func (p *replayer) change(line int, ev event, was, now, why string) {
	p.rep.Changes = append(p.rep.Changes, Change{Line: line, Chain: ev.str("chain"), Seq: ev.seq(), Event: ev.str("event"),
		Principal: first(ev, "principal", "caller"), Agent: ev.str("agent"), Grants: grantsOf(ev), Was: was, Now: now, Why: why})
}

func first(ev event, keys ...string) string {
	for _, k := range keys {
		if s := ev.str(k); s != "" {
			return s
		}
	}
	return ""
}

func grantsOf(ev event) []string {
	if g := ev.strs("grants"); len(g) > 0 {
		return g
	}
	if g := ev.str("grant"); g != "" {
		return []string{g}
	}
	return nil
}

// when is the event's time.
func (e event) when() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.str("time"))
	return t
}

// rulesText lists a decision's rules as the audit event does: by id.
func rulesText(d policy.Decision) []string {
	out := make([]string, 0, len(d.Matched))
	for _, m := range d.Matched {
		out = append(out, m.ID)
	}
	return out
}

// denialText is the last reason of a denial.
func denialText(d policy.Decision) string {
	if len(d.Reasons) == 0 {
		return "no rule allows it"
	}
	return d.Reasons[len(d.Reasons)-1].Text
}

func same(a, b []string) bool { return slices.Equal(a, b) }

func joined(s []string) string { return strings.Join(s, ",") }
