package admin

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/metrics"
)

// EventAdminRefused is the audit event of an admin API call refused as
// unauthenticated (401) or not allowed (403).
const EventAdminRefused = "admin.refused"

// maxAuditedPath bounds the request path an audit event keeps.
const maxAuditedPath = 256

// caller holds the principal a request authenticated as, for the audit
// of a refusal decided after authentication.
type caller struct{ id string }

type callerKey struct{}

// auditRefusals records every 401 and 403 the admin API answers: who
// asked (when they authenticated), the method, the path and the status,
// through Deps.Refusals when set (bounded per client), and counts each in
// the metrics.
func (a *API) auditRefusals(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := &caller{}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), callerKey{}, who)))
		if rec.status != http.StatusUnauthorized && rec.status != http.StatusForbidden {
			return
		}
		path := r.URL.Path
		if len(path) > maxAuditedPath {
			path = path[:maxAuditedPath]
		}
		attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", path), slog.Int("status", rec.status),
			slog.String("decision", "refused")}
		if who.id != "" {
			attrs = append(attrs, slog.String("caller", who.id))
		}
		a.deps.Metrics.ObserveRefused(metrics.SurfaceAdmin, rec.status)
		if a.deps.Refusals != nil {
			a.deps.Refusals.Log(r.Context(), throttle.Client(r.RemoteAddr), EventAdminRefused, attrs...)
			return
		}
		a.audit(r.Context(), EventAdminRefused, attrs...)
	})
}

// noteCaller records the authenticated principal for auditRefusals; it
// runs after authn.Middleware.
func noteCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if who, ok := r.Context().Value(callerKey{}).(*caller); ok {
			if p, ok := authn.PrincipalFrom(r.Context()); ok {
				who.id = p.ID
			}
		}
		next.ServeHTTP(w, r)
	})
}

// statusRecorder keeps the status a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
