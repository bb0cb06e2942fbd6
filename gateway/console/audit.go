package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"

	"github.com/capgate/capgate/gateway/audit"
)

const (
	// tailBytes is how much of the audit file's end the page reads.
	tailBytes = 256 << 10
	// tailEvents is how many recent events the page shows.
	tailEvents = 50
)

// shownFields are the event attributes the page shows: who, what and the
// decision, never a token or a resource id.
var shownFields = []string{"principal", "holder", "admin", "agent", "grant", "decision", "purpose", "reason", "error"}

type auditEvent struct {
	Time, Event, Chain string
	Seq                uint64
	Fields             [][2]string
}

type auditView struct {
	File   string
	Events []auditEvent
	Chain  string
	Broken bool
	Error  string
}

// auditPage shows the newest events of the audit file and verifies the
// whole chain on every view.
func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, op operator) {
	v := auditView{File: c.cfg.AuditFile}
	if v.File != "" {
		v.Chain, v.Broken = chainStatus(v.File)
		ev, err := tail(v.File)
		if err != nil {
			v.Error = "The audit file cannot be read."
			c.deps.Logger.ErrorContext(r.Context(), "console: reading the audit file failed", "error", err)
		}
		v.Events = ev
	}
	c.render(w, http.StatusOK, "audit", view{Title: "Audit", Nav: "audit", Op: &op, Page: v})
}

// chainStatus verifies the file: "N events, chain intact" or where it
// first breaks.
func chainStatus(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "the audit file cannot be opened", true
	}
	defer f.Close()
	rep, err := audit.VerifyWith(f, audit.VerifyOptions{})
	var le *audit.LineError
	switch {
	case errors.As(err, &le):
		return fmt.Sprintf("%d events verified, then broken at %v", rep.Events, le), true
	case err != nil:
		return fmt.Sprintf("verification failed: %v", err), true
	}
	return fmt.Sprintf("%d events, chain intact", rep.Events), false
}

// tail returns the newest events of the file, newest first.
func tail(path string) ([]auditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	start := max(st.Size()-tailBytes, 0)
	buf := make([]byte, st.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	lines := bytes.Split(buf, []byte("\n"))
	if start > 0 && len(lines) > 0 {
		lines = lines[1:] // the first line may be cut
	}
	var out []auditEvent
	for _, line := range slices.Backward(lines) {
		if ev, ok := parseEvent(line); ok {
			out = append(out, ev)
		}
		if len(out) == tailEvents {
			break
		}
	}
	return out, nil
}

func parseEvent(line []byte) (auditEvent, bool) {
	var m map[string]any
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &m) != nil {
		return auditEvent{}, false
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	seq, _ := m["seq"].(float64)
	ev := auditEvent{Time: str("time"), Event: str("event"), Chain: str("chain"), Seq: uint64(seq)}
	for _, k := range shownFields {
		if s, ok := m[k].(string); ok && s != "" {
			ev.Fields = append(ev.Fields, [2]string{k, s})
		}
	}
	return ev, true
}
