package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/audit"
)

// errTrailLine means a line of an audit trail is not an event.
var errTrailLine = errors.New("audit trail: line is not an event")

// trailEvent is what the policy commands read of one audit event: the
// fields of the issuance, attenuation and invocation events, by their
// audit names. An event lacks the fields its kind does not carry.
type trailEvent struct {
	Time          time.Time `json:"time"`
	Event         string    `json:"event"`
	Chain         string    `json:"chain"`
	Seq           uint64    `json:"seq"`
	Principal     string    `json:"principal"`
	Caller        string    `json:"caller"`
	Agent         string    `json:"agent"`
	Grants        []string  `json:"grants"`
	Grant         string    `json:"grant"`
	Operation     string    `json:"operation"`
	Operations    []string  `json:"operations"`
	Purpose       string    `json:"purpose"`
	Decision      string    `json:"decision"`
	Rules         []string  `json:"rules"`
	CapabilityIDs []string  `json:"capability_ids"`
	CapabilityID  string    `json:"capability_id"`
	ParentID      string    `json:"parent_id"`
	Depth         int       `json:"depth"`
	Revision      string    `json:"policy_revision"`
}

// isIssue reports whether ev records a capability request's decision.
func (ev trailEvent) isIssue() bool { return ev.Event == a2afront.EventIssue }

// readTrail reads the events of an audit trail, one JSON object a line,
// skipping blank lines. Each event needs its time, event and seq fields;
// every other field is read when present.
func readTrail(r io.Reader) ([]trailEvent, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), audit.MaxLineBytes+1)
	var out []trailEvent
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var ev trailEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", errTrailLine, n, err)
		}
		if ev.Event == "" || ev.Time.IsZero() || ev.Seq == 0 {
			return nil, fmt.Errorf("%w: line %d: time, event or seq is missing", errTrailLine, n)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", errTrailLine, err)
	}
	return out, nil
}
