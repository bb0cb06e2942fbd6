package console

import (
	"log/slog"
	"net/http"

	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/metrics"
)

// EventConsoleRefused is the audit event of a console request refused as
// unauthenticated (401) or not allowed (403): a failed sign-in, a page
// above the operator's role, a form without its CSRF token.
const EventConsoleRefused = "console.refused"

// audited counts a refused request in the metrics and records it in the
// audit trail (Deps.Audit, through Deps.Refusals when set): who, when
// known, the method, the path, the status and why.
func (c *Console) audited(r *http.Request, status int, principal, reason string) {
	c.deps.Metrics.ObserveRefused(metrics.SurfaceConsole, status)
	if c.deps.Audit == nil {
		return
	}
	attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", clip(r.URL.Path)),
		slog.Int("status", status), slog.String("decision", "refused"), slog.String("reason", reason)}
	if principal != "" {
		attrs = append(attrs, slog.String("principal", principal))
	}
	if c.deps.Refusals != nil {
		c.deps.Refusals.Log(r.Context(), throttle.Client(r.RemoteAddr), EventConsoleRefused, attrs...)
		return
	}
	c.deps.Audit.LogAttrs(r.Context(), slog.LevelInfo, EventConsoleRefused, attrs...)
}

// refuse audits a refusal and answers it with msg.
func (c *Console) refuse(w http.ResponseWriter, r *http.Request, status int, principal, reason, msg string) {
	c.audited(r, status, principal, reason)
	c.fail(w, status, msg)
}
