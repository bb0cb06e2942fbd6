package console

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/capgate/capgate/gateway/audit"
)

type auditView struct {
	File   string
	Filter auditFilter
	auditPage
	Chain  string
	Broken bool
	// CEF says the trail is in CEF (audit.format: cef), which carries no
	// whole events: the page can neither show nor verify it.
	CEF   bool
	Error string
	// Newer and Older are the query strings of the neighbouring pages;
	// empty when there is none.
	Newer, Older string
	// First and Last number the shown events among the matches, 1-based.
	First, Last int
}

// auditPage shows the events of the audit file that match the filter,
// newest first, a page at a time, and verifies the whole chain on every
// view, in the same read of the file.
func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, op operator) {
	v := auditView{File: c.cfg.AuditFile}
	status := http.StatusOK
	f, err := readAuditFilter(r.URL.Query())
	v.Filter = f
	switch {
	case v.File == "":
	case err != nil:
		v.Error, status = "The filter cannot be read: "+err.Error(), http.StatusBadRequest
	case isCEF(v.File):
		v.CEF = true
	default:
		if v.auditPage, v.Chain, v.Broken, err = c.readAuditFile(f); err != nil {
			v.Error = "The audit file cannot be read."
			c.deps.Logger.ErrorContext(r.Context(), "console: reading the audit file failed", "error", err)
		}
		v.First, v.Last = f.Page*auditPageSize+1, f.Page*auditPageSize+len(v.Events)
		if f.Page > 0 {
			v.Newer = "?" + f.query(f.Page-1)
		}
		if v.Last < v.Matched && f.Page < maxAuditPage {
			v.Older = "?" + f.query(f.Page+1)
		}
	}
	c.render(w, status, "audit", view{Title: "Audit", Nav: "audit", Op: &op, Page: v})
}

// readAuditFile reads the page of events f asks for and verifies the
// whole chain, in one read of the file.
func (c *Console) readAuditFile(f auditFilter) (_ auditPage, chain string, broken bool, err error) {
	file, err := os.Open(c.cfg.AuditFile)
	if err != nil {
		return auditPage{}, "the audit file cannot be opened", true, err
	}
	defer file.Close()
	v := audit.NewVerifier(audit.VerifyOptions{})
	page, lineErr, err := readAudit(file, f, v)
	if err != nil && lineErr == nil {
		return page, fmt.Sprintf("verification failed: %v", err), true, err
	}
	chain, broken = chainStatus(v.Report(), lineErr)
	return page, chain, broken, err
}

// isCEF reports whether the trail's first line is a CEF record (package
// siem): such a trail keeps only the mapped fields of each event, so it
// cannot be shown or verified here. A file that cannot be read is left to
// the chain status to report.
func isCEF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(cefPrefix))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == cefPrefix
}

// cefPrefix starts every CEF record.
const cefPrefix = "CEF:"

// chainStatus says what verifying the trail found: "N events, chain
// intact", or the position where it first breaks (lineErr).
func chainStatus(rep audit.Report, lineErr error) (string, bool) {
	var le *audit.LineError
	switch {
	case errors.As(lineErr, &le):
		return fmt.Sprintf("chain broken at position %d, after %d events verified: %v", le.Line, rep.Events, le.Err), true
	case lineErr != nil:
		return fmt.Sprintf("verification failed: %v", lineErr), true
	}
	return fmt.Sprintf("%d events, chain intact", rep.Events), false
}
