package console

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/policy/impact"
)

// shadowTail bounds the end of the audit file the shadow page reads, and
// shadowShown the disagreements it shows.
const (
	shadowTail  = 1 << 20
	shadowShown = 50
)

// shadowEvent is one policy.shadow_disagreement as the page shows it.
type shadowEvent struct {
	Time, Principal, Agent string
	Grants                 []string
	Enforced, Candidate    []string
}

// shadowView is the shadow page.
type shadowView struct {
	// Configured says a shadow policy is configured (policy.shadow_file).
	Configured           bool
	Enforced, Candidate  string
	Diff                 string
	AuditFile, AuditNote string
	Disagreements        []shadowEvent
}

// shadowPage shows, when a candidate policy runs in shadow, what it would
// change (policy/impact's diff between the enforced and the candidate
// policy) and the newest disagreements on live requests from the audit
// file.
func (c *Console) shadowPage(w http.ResponseWriter, r *http.Request, op operator) {
	v := shadowView{AuditFile: c.cfg.AuditFile}
	if c.deps.Shadow != nil && c.deps.Shadow.Current() != nil {
		enforced, cand := c.deps.Policy.Current(), c.deps.Shadow.Current()
		v.Configured, v.Enforced, v.Candidate = true, enforced.Revision(), cand.Revision()
		v.Diff = c.diffs.get(enforced.Revision()+" "+cand.Revision(), c.deps.Now(), func() (string, bool) {
			u := impact.NewUniverse(impact.Sources{Catalog: cand.Catalog(),
				Vocabulary: enforced.Vocabulary().Merge(cand.Vocabulary()), Now: c.deps.Now()})
			var b strings.Builder
			if err := impact.Compare(r.Context(), enforced, cand, u).WriteText(&b); err != nil {
				return "", false
			}
			return b.String(), true
		})
	}
	switch {
	case v.AuditFile == "":
	case isCEF(v.AuditFile):
		v.AuditNote = "The audit trail is in CEF (audit.format: cef), which keeps no disagreement: they cannot be shown here."
	default:
		ev, err := shadowEvents(v.AuditFile)
		if err != nil {
			c.deps.Logger.ErrorContext(r.Context(), "console: reading the audit file failed", "error", err)
			v.AuditNote = "The audit file cannot be read."
		}
		v.Disagreements = ev
	}
	c.render(w, http.StatusOK, "shadow", view{Title: "Shadow policy", Nav: "shadow", Op: &op, Page: v})
}

// shadowDiffs keeps the last diff the shadow page computed: comparing
// two policies decides every request of their universe, too much to do
// again on every view. It is computed again once either policy changes
// revision, or after shadowDiffTTL, since a condition may read the time.
type shadowDiffs struct {
	mu   sync.Mutex
	key  string
	at   time.Time
	text string
}

// shadowDiffTTL is how long a diff of the same two revisions is shown.
const shadowDiffTTL = time.Minute

// get returns the diff of the policies key names, computing it when the
// one kept is of others or older than shadowDiffTTL. Views that arrive
// while it is computed wait for it rather than compute it again. A diff
// that could not be computed (ok false: the view went away, say) is
// shown as it is and not kept.
func (d *shadowDiffs) get(key string, now time.Time, compute func() (string, bool)) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.key == key && now.Sub(d.at) < shadowDiffTTL && !now.Before(d.at) {
		return d.text
	}
	text, ok := compute()
	if ok {
		d.key, d.at, d.text = key, now, text
	} else {
		d.key = ""
	}
	return text
}

// shadowEvents reads the newest disagreements, newest first, from the
// last shadowTail bytes of the audit file.
func shadowEvents(path string) ([]shadowEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(max(st.Size()-shadowTail, 0), io.SeekStart); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), shadowTail)
	var out []shadowEvent
	for sc.Scan() {
		if e, ok := shadowEventOf(sc.Bytes()); ok {
			out = append([]shadowEvent{e}, out...)
			out = out[:min(len(out), shadowShown)]
		}
	}
	return out, sc.Err()
}

// shadowEventOf reads one line; a cut line or another event is skipped.
func shadowEventOf(line []byte) (shadowEvent, bool) {
	var e struct {
		Event, Time, Principal, Agent string
		Grants                        []string
		Enforced, Candidate           struct{ Outcome []string }
	}
	line, err := audit.Unwrap(line) // an OCSF record keeps the event
	if err != nil || json.Unmarshal(line, &e) != nil || e.Event != "policy.shadow_disagreement" {
		return shadowEvent{}, false
	}
	return shadowEvent{Time: e.Time, Principal: e.Principal, Agent: e.Agent, Grants: e.Grants,
		Enforced: e.Enforced.Outcome, Candidate: e.Candidate.Outcome}, true
}
