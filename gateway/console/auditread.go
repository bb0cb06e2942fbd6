package console

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/audit"
)

const (
	// auditPageSize is how many events one page of the trail shows.
	auditPageSize = 50
	// maxAuditPage bounds the page number taken from the query.
	maxAuditPage = 10000
	// maxAuditLine bounds one event line as the audit verifier does: a
	// longer line is not an event the gateway wrote, and the page says the
	// file cannot be read (the chain status names the line).
	maxAuditLine = audit.MaxLineBytes + 2
)

// shownFields are the event attributes the page shows: who, what and the
// decision, never a token or a resource id; for a refused call, the
// client address, and for the summary of suppressed ones their number
// and the first and last of their times.
var shownFields = []string{"principal", "holder", "admin", "caller", "agent", "to_agent", "server", "host", "grant",
	"skill", "tool", "method", "path", "status", "decision", "purpose", "reason", "error", "client", "suppressed",
	"first", "last"}

// Attributes an audit filter searches.
var (
	principalFields = []string{"principal", "holder", "admin", "caller"}
	agentFields     = []string{"agent", "to_agent", "server", "host"}
	// capabilityKeys hold capability ids, at the top or nested (an
	// admin.revoke's request and result).
	capabilityKeys = []string{"capability_id", "parent_id", "parent_capability_id", "requested_capability_id",
		"capability_ids", "capabilityId"}
)

// auditFilter selects the events the page shows; the zero filter shows
// all, newest first, Page pages back.
type auditFilter struct {
	Principal, Agent, Capability, Kind string
	// FromText and ToText are the form's values; From and To parsed.
	FromText, ToText string
	From, To         time.Time
	Page             int
}

// auditEvent is one event of the trail, as the page shows it.
type auditEvent struct {
	Time, Event, Chain string
	Seq                uint64
	// Line is the event's position in the file, 1-based.
	Line   int
	Fields [][2]string
	// Capabilities are the capability ids the event names, linked to
	// their page.
	Capabilities []string
	// Revoked says what an admin.revoke revoked.
	Revoked string
	at      time.Time
	values  map[string][]string
}

// readAuditFilter reads the filter from the query; a bad time is an
// error the page shows.
func readAuditFilter(q url.Values) (auditFilter, error) {
	f := auditFilter{Principal: strings.TrimSpace(clip(q.Get("principal"))), Agent: strings.TrimSpace(clip(q.Get("agent"))),
		Capability: strings.TrimSpace(clip(q.Get("capability"))), Kind: strings.TrimSpace(clip(q.Get("event"))),
		FromText: strings.TrimSpace(clip(q.Get("from"))), ToText: strings.TrimSpace(clip(q.Get("to")))}
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 0 {
		f.Page = min(p, maxAuditPage)
	}
	var err error
	if f.From, err = parseWhen(f.FromText); err != nil {
		return f, fmt.Errorf("from: %w", err)
	}
	if f.To, err = parseWhen(f.ToText); err != nil {
		return f, fmt.Errorf("to: %w", err)
	}
	return f, nil
}

// parseWhen reads a time as a browser's datetime-local field sends it
// (taken as UTC), a date, or RFC 3339; empty is the zero time.
func parseWhen(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (2026-01-02T15:04, UTC)", s)
}

// query writes the filter back as a query string for page links.
func (f auditFilter) query(page int) string {
	q := url.Values{}
	for k, v := range map[string]string{"principal": f.Principal, "agent": f.Agent, "capability": f.Capability,
		"event": f.Kind, "from": f.FromText, "to": f.ToText} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	return q.Encode()
}

// match reports whether ev passes the filter.
func (f auditFilter) match(ev *auditEvent) bool {
	has := func(keys []string, want string) bool {
		return want == "" || slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(ev.values[k], want) })
	}
	return has(principalFields, f.Principal) && has(agentFields, f.Agent) &&
		(f.Capability == "" || slices.Contains(ev.Capabilities, f.Capability)) &&
		(f.Kind == "" || ev.Event == f.Kind || strings.HasPrefix(ev.Event, strings.TrimSuffix(f.Kind, ".")+".")) &&
		(f.From.IsZero() || !ev.at.Before(f.From)) && (f.To.IsZero() || ev.at.Before(f.To))
}

// auditPage is one page of the events matching a filter, newest first.
type auditPage struct {
	Events []auditEvent
	// Matched counts every matching event of the file.
	Matched int
	// Skipped counts the lines that are not events.
	Skipped int
}

// readAudit scans the trail once and keeps the page of matching events
// f asks for: a ring of the newest (Page+1)*auditPageSize matches. When
// v is given, every line is also verified by it, in the same read, up to
// the first that breaks the chain: that line's error is broken (a line
// too long to read breaks it too). err is a failure to read the trail.
func readAudit(r io.Reader, f auditFilter, v *audit.Verifier) (_ auditPage, broken, err error) {
	keep := (f.Page + 1) * auditPageSize
	ring := make([]auditEvent, 0, min(keep, 4*auditPageSize))
	var out auditPage
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxAuditLine)
	line := 1
	for ; sc.Scan(); line++ {
		if v != nil && broken == nil {
			broken = v.Line(sc.Bytes())
		}
		ev, ok := parseEvent(sc.Bytes())
		if !ok {
			out.Skipped++
			continue
		}
		ev.Line = line
		if !f.match(&ev) {
			continue
		}
		if len(ring) < keep {
			ring = append(ring, ev)
		} else {
			ring[out.Matched%keep] = ev
		}
		out.Matched++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) && v != nil && broken == nil {
			broken = &audit.LineError{Line: line, Err: fmt.Errorf("%w: line longer than %d bytes", audit.ErrMalformed, audit.MaxLineBytes)}
		}
		return out, broken, err
	}
	// The newest match is at (Matched-1)%keep; page p shows the matches
	// numbered Matched-1-p*size down to Matched-(p+1)*size.
	for i := out.Matched - 1 - f.Page*auditPageSize; i >= 0 && i > out.Matched-1-keep; i-- {
		if len(out.Events) == auditPageSize {
			break
		}
		out.Events = append(out.Events, ring[i%keep])
	}
	return out, broken, nil
}

// parseEvent reads one line of the trail, a canonical event or an OCSF
// record of one (read through the canonical event it carries, as Verify
// reads it); ok is false for a line that is not a JSON object, or an
// OCSF record whose fields are not those of its event.
func parseEvent(line []byte) (auditEvent, bool) {
	var m map[string]any
	if len(line) == 0 {
		return auditEvent{}, false
	}
	line, err := audit.Unwrap(line)
	if err != nil || json.Unmarshal(line, &m) != nil || m == nil {
		return auditEvent{}, false
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	seq, _ := m["seq"].(float64)
	ev := auditEvent{Time: str("time"), Event: str("event"), Chain: str("chain"), Seq: uint64(seq), values: map[string][]string{}}
	if at, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
		ev.at, ev.Time = at, at.UTC().Format("2006-01-02 15:04:05Z")
	}
	for _, k := range slices.Concat(principalFields, agentFields) {
		if s := str(k); s != "" {
			ev.values[k] = []string{s}
		}
	}
	for _, k := range shownFields {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				ev.Fields = append(ev.Fields, [2]string{k, v})
			}
		case float64:
			ev.Fields = append(ev.Fields, [2]string{k, strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	collectIDs(m, &ev.Capabilities)
	if ev.Event == eventAdminRevoke {
		ev.Revoked = revokedWhat(m)
	}
	return ev, true
}

// collectIDs gathers, once each, the capability ids under
// capabilityKeys anywhere in v.
func collectIDs(v any, out *[]string) {
	add := func(s string) {
		if s != "" && !slices.Contains(*out, s) {
			*out = append(*out, s)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range capabilityKeys {
			switch id := v[k].(type) {
			case string:
				add(id)
			case []any:
				for _, e := range id {
					if s, ok := e.(string); ok {
						add(s)
					}
				}
			}
		}
		for _, k := range []string{"request", "result"} {
			collectIDs(v[k], out)
		}
	}
}

// eventAdminRevoke is admin.EventAdminRevoke, the admin API's and the
// console's revocation event.
const eventAdminRevoke = "admin.revoke"

// revokedWhat says what an admin.revoke event revoked, from its request
// and result.
func revokedWhat(m map[string]any) string {
	req, _ := m["request"].(map[string]any)
	res, _ := m["result"].(map[string]any)
	get := func(k string) string {
		if s, ok := res[k].(string); ok && s != "" {
			return s
		}
		s, _ := req[k].(string)
		return s
	}
	switch {
	case get("capabilityId") != "":
		return "capability " + get("capabilityId") + " and every capability delegated from it"
	case get("revocationId") != "":
		return "revocation id " + get("revocationId") + " and everything issued under it"
	case get("principal") != "":
		before := get("before")
		if before == "" {
			before = "the revocation"
		}
		return "every capability of " + get("principal") + " issued before " + before
	}
	return "nothing named (a malformed request)"
}
