package authn

import (
	"errors"
	"log/slog"
	"net/http"
)

// Challenge headers written by Middleware on a 401.
const (
	challengeNoCredentials = `Bearer realm="capgate"`
	challengeInvalid       = `Bearer realm="capgate", error="invalid_token"`
)

// Middleware authenticates every request with a before it reaches next.
//
// On success it stores the Principal in the request context (read it with
// PrincipalFrom) and calls next with the request otherwise unchanged: the
// Authorization header is left in place, and the proxy must strip it before
// forwarding upstream.
//
// On failure next is never called, and the response is JSON with
// Cache-Control: no-store:
//   - ErrNoCredentials: 401, WWW-Authenticate: Bearer realm="capgate",
//     {"error":"unauthorized"};
//   - ErrInvalidCredentials: 401, WWW-Authenticate: Bearer realm="capgate",
//     error="invalid_token", {"error":"invalid_token"};
//   - ErrIssuerUnavailable: 503 with Retry-After: 1 and
//     {"error":"temporarily_unavailable"}. A 401 would tell a client holding
//     a good token to throw it away; the outage is ours, not the caller's.
//     The retry hint matches the default discovery retry interval.
//   - anything else: 500, {"error":"server_error"}.
//
// The reason for a refusal is logged at debug level (never the credential)
// and never sent to the caller. A nil logger discards logs.
func Middleware(a *Authenticator, logger *slog.Logger) func(http.Handler) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := a.AuthenticateRequest(r.Context(), r)
			if err != nil {
				logger.DebugContext(r.Context(), "authn: request refused",
					"method", r.Method, "path", r.URL.Path, "error", err)
				WriteError(w, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
		})
	}
}

// WriteError writes the HTTP response Middleware sends for an
// authentication error (see Middleware). Other fronts that authenticate on
// their own, such as a handshake over HTTP, can use it to answer the same
// way.
func WriteError(w http.ResponseWriter, err error) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	switch {
	case errors.Is(err, ErrNoCredentials):
		h.Set("WWW-Authenticate", challengeNoCredentials)
		writeBody(w, http.StatusUnauthorized, `{"error":"unauthorized"}`)
	case errors.Is(err, ErrInvalidCredentials):
		h.Set("WWW-Authenticate", challengeInvalid)
		writeBody(w, http.StatusUnauthorized, `{"error":"invalid_token"}`)
	case errors.Is(err, ErrIssuerUnavailable):
		h.Set("Retry-After", "1")
		writeBody(w, http.StatusServiceUnavailable, `{"error":"temporarily_unavailable"}`)
	default:
		writeBody(w, http.StatusInternalServerError, `{"error":"server_error"}`)
	}
}

func writeBody(w http.ResponseWriter, status int, body string) {
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body + "\n"))
}
