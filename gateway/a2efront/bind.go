package a2efront

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/capgate/capgate/gateway/authn"
)

// callerKey carries the principal a request's own credentials
// authenticated as, for the handshake to compare with its auth_token.
type callerKey struct{}

// bound checks the credentials a request carries against session s. A
// request without credentials passes unless the host requires them (the
// session id alone identifies a stock A2E client's session). A request
// with credentials must authenticate, and as the session's principal once
// it has one. Otherwise the caller gets 401 unauthorized (503 when the
// issuer is unreachable), the refusal is audited, and false is returned:
// nothing is forwarded. On success the returned context carries the
// caller's principal, if any, for the handshake.
func (f *Front) bound(w http.ResponseWriter, r *http.Request, h *upstream, s Session) (context.Context, bool) {
	if len(r.Header.Values("Authorization")) == 0 && !h.RequireCredentials {
		return r.Context(), true
	}
	why := "the credentials do not authenticate"
	var p *authn.Principal
	err := errors.New("no authenticator")
	if f.deps.AuthenticateRequest != nil {
		p, err = f.deps.AuthenticateRequest(r.Context(), r)
	}
	switch {
	case errors.Is(err, authn.ErrIssuerUnavailable):
		f.deps.Logger.Error("a2efront: authenticating a request", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, transportError{Error: "unavailable", Retryable: true})
		return nil, false
	case errors.Is(err, authn.ErrNoCredentials):
		why = "this host requires credentials on every request"
	case err == nil && p != nil && s.Principal != "" && (p.ID != s.Principal || p.Issuer != s.Issuer):
		why = "the credentials are not the session's principal"
	case err == nil && p != nil:
		return context.WithValue(r.Context(), callerKey{}, p), true
	}
	f.deps.Audit.LogAttrs(r.Context(), slog.LevelInfo, EventRefusal,
		slog.String("session", sessionRef(s.ID)), slog.String("host", h.Name), slog.String("principal", s.Principal),
		slog.String("code", "unauthorized"), slog.String("reason", why))
	w.Header().Set("WWW-Authenticate", `Bearer realm="capgate"`)
	writeJSON(w, http.StatusUnauthorized, transportError{Error: "unauthorized", Message: why})
	return nil, false
}

// callerOf returns the principal the request's own credentials
// authenticated as, or nil.
func callerOf(ctx context.Context) *authn.Principal {
	p, _ := ctx.Value(callerKey{}).(*authn.Principal)
	return p
}
