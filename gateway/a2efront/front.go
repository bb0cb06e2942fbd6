package a2efront

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
)

// SessionHeader carries the session id on /send and /stream.
const SessionHeader = "X-Session-Id"

// PolicySource hands out the policy in force; *policy.Watcher is one.
type PolicySource interface {
	// Current returns the policy in force, or nil when none is loaded.
	Current() *policy.Policy
}

// Deps are the Front's collaborators.
type Deps struct {
	// Authenticate turns handshake/req's auth_token into a principal
	// ((*authn.Authenticator).AuthenticateToken). Required.
	Authenticate func(ctx context.Context, token string) (*authn.Principal, error)
	// AuthenticateRequest authenticates the credentials a /session,
	// /send or /stream request carries in its Authorization header
	// ((*authn.Authenticator).AuthenticateRequest). Without it, a request
	// carrying credentials is refused, and no host may require them.
	AuthenticateRequest func(ctx context.Context, r *http.Request) (*authn.Principal, error)
	// Policy decides which capabilities a principal may negotiate.
	// Required.
	Policy PolicySource
	// Sessions holds the sessions; share one Redis store between
	// replicas. Required.
	Sessions SessionStore
	// HTTPClient reaches the hosts; nil means a new client without an
	// overall timeout (streams are long-lived; calls carry their own). The
	// Front uses a copy that never follows redirects, so a host cannot
	// bounce a forwarded line (and its own secret) elsewhere.
	HTTPClient *http.Client
	// Frozen is the emergency stop: every message but shutdown of a
	// session whose host or principal is frozen is refused. Nil freezes
	// nothing.
	Frozen *freeze.Set
	// Shadow, when set, is a candidate policy that decides every
	// handshake beside Policy without enforcing anything; each
	// disagreement is audited (policy.shadow_disagreement) and reported
	// to Disagreed.
	Shadow    PolicySource
	Disagreed func()
	// Runtime is the clock (nil means time.Now) and the operational
	// logger (nil discards); Open also reads the hosts' secrets with its
	// Getenv and keeps the sessions on its Redis.
	platform.Runtime
	// Audit receives one event per handshake and per refusal; nil
	// discards them.
	Audit *slog.Logger
	// RecordKey keys the MAC every session record carries (at least
	// MinRecordKeyBytes); a record that fails it is treated as gone.
	// Replicas sharing a store must share it: the gateway derives it from
	// the capability key set (captoken.KeySet.DeriveKey with
	// RecordKeyInfo). Empty means a random key for this Front alone.
	RecordKey []byte
}

// validate reports every missing collaborator, each wrapping
// ErrInvalidConfig.
func (deps Deps) validate(cfg Config) error {
	var errs []error
	if deps.Authenticate == nil {
		errs = append(errs, fmt.Errorf("%w: Deps.Authenticate is required", ErrInvalidConfig))
	}
	if deps.AuthenticateRequest == nil && slices.ContainsFunc(cfg.Hosts, func(h Host) bool { return h.RequireCredentials }) {
		errs = append(errs, fmt.Errorf("%w: a host requires credentials but Deps.AuthenticateRequest is not set", ErrInvalidConfig))
	}
	if deps.Policy == nil {
		errs = append(errs, fmt.Errorf("%w: Deps.Policy is required", ErrInvalidConfig))
	}
	if deps.Sessions == nil {
		errs = append(errs, fmt.Errorf("%w: Deps.Sessions is required", ErrInvalidConfig))
	}
	return errors.Join(errs...)
}

// Front is the A2E front: it authenticates handshakes, narrows and
// records negotiated capabilities, and enforces them on every message.
type Front struct {
	cfg   Config
	deps  Deps
	hosts map[string]*upstream
	// narrowed checks each message's capability against what its session
	// negotiated and the policy in force still allows.
	narrowed *enforce.Sessions
}

// upstream is one configured host.
type upstream struct {
	Host
	base    *url.URL
	offered map[string]bool // nil: not configured
}

// New validates cfg and deps and returns a Front.
func New(cfg Config, deps Deps) (*Front, error) {
	if err := errors.Join(cfg.Validate(), deps.validate(cfg)); err != nil {
		return nil, err
	}
	sealed, err := newSealedStore(deps.Sessions, deps.RecordKey)
	if err != nil {
		return nil, err
	}
	deps.Sessions, deps.RecordKey = sealed, nil
	cfg = cfg.withDefaults()
	hc := http.Client{}
	if deps.HTTPClient != nil {
		hc = *deps.HTTPClient
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	deps.HTTPClient = &hc
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Audit == nil {
		deps.Audit = slog.New(slog.DiscardHandler)
	}
	f := &Front{cfg: cfg, deps: deps, hosts: map[string]*upstream{}}
	f.narrowed = enforce.NewSessions(deps.Policy.Current, cfg.MaxSessions)
	for _, h := range cfg.Hosts {
		base, _ := url.Parse(h.URL) // validated
		if !strings.HasSuffix(base.Path, "/") {
			base.Path += "/"
		}
		if h.Version == "" {
			h.Version = a2e.Version1
		}
		up := &upstream{Host: h, base: base}
		if len(h.Capabilities) > 0 {
			up.offered = map[string]bool{}
			for _, c := range h.Capabilities {
				up.offered[c] = true
			}
		}
		f.hosts[h.Name] = up
	}
	return f, nil
}

// Mount registers POST /a2e/{host}/session, POST /a2e/{host}/send and
// GET /a2e/{host}/stream on r.
func (f *Front) Mount(r chi.Router) {
	r.Post("/a2e/{host}/session", f.serveSession)
	r.Post("/a2e/{host}/send", f.serveSend)
	r.Get("/a2e/{host}/stream", f.serveStream)
}

// newID returns 128 random bits in hex.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("a2efront: crypto/rand failed: %v", err)) // never happens on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// transportError is the JSON body of a transport-level failure.
type transportError struct {
	Error     string `json:"error"`
	Message   string `json:"message,omitempty"`
	Retryable bool   `json:"retryable,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sessionFor resolves the host and the caller's session and checks the
// request's credentials against it, writing the transport error and
// returning false when it cannot. The context is the request's, with the
// caller's principal when credentials came with it.
func (f *Front) sessionFor(w http.ResponseWriter, r *http.Request) (*upstream, Session, context.Context, bool) {
	h, ok := f.hosts[chi.URLParam(r, "host")]
	if !ok {
		writeJSON(w, http.StatusNotFound, transportError{Error: "unknown_host"})
		return nil, Session{}, nil, false
	}
	id := r.Header.Get(SessionHeader)
	if id == "" {
		writeJSON(w, http.StatusBadRequest, transportError{Error: "missing_session_id", Message: "send the " + SessionHeader + " header"})
		return nil, Session{}, nil, false
	}
	s, err := f.deps.Sessions.Get(r.Context(), id)
	switch {
	case errors.Is(err, ErrRecordForged):
		f.forged(r.Context(), h, id)
		writeJSON(w, http.StatusNotFound, transportError{Error: "unknown_session"})
		return nil, Session{}, nil, false
	case errors.Is(err, ErrSessionNotFound), err == nil && (s.Host != h.Name || s.State == StateClosed):
		writeJSON(w, http.StatusNotFound, transportError{Error: "unknown_session"})
		return nil, Session{}, nil, false
	case err != nil:
		f.deps.Logger.Error("a2efront: reading a session", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, transportError{Error: "unavailable", Retryable: true})
		return nil, Session{}, nil, false
	}
	ctx, ok := f.bound(w, r, h, s)
	if !ok {
		return nil, Session{}, nil, false
	}
	return h, s, ctx, true
}

// serveSession answers POST /a2e/{host}/session: it reserves a gateway
// session. The host's own session is opened only by the first
// authenticated handshake, so callers who never authenticate never reach
// the host. A request without credentials is an anonymous reservation,
// held within Config.MaxAnonymousSessions and Config.MaxSessionsPerClient
// until its handshake authenticates.
func (f *Front) serveSession(w http.ResponseWriter, r *http.Request) {
	h, ok := f.hosts[chi.URLParam(r, "host")]
	if !ok {
		writeJSON(w, http.StatusNotFound, transportError{Error: "unknown_host"})
		return
	}
	ctx, ok := f.bound(w, r, h, Session{Host: h.Name})
	if !ok {
		return
	}
	now := f.deps.Now()
	s := Session{ID: newID(), Host: h.Name, State: StateNew, CreatedAt: now, ExpiresAt: now.Add(f.cfg.HandshakeTimeout)}
	if callerOf(ctx) == nil {
		s.Client = clientKey(r.RemoteAddr)
	}
	lim := Limits{Max: f.cfg.MaxSessions, Anonymous: f.cfg.MaxAnonymousSessions, PerClient: f.cfg.MaxSessionsPerClient}
	if err := f.deps.Sessions.Create(ctx, s, lim); err != nil {
		f.refuseSession(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"session_id": s.ID})
}

// refuseSession answers a POST /session the store refused.
func (f *Front) refuseSession(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrSessionLimit):
		writeJSON(w, http.StatusServiceUnavailable, transportError{Error: "too_many_sessions", Retryable: true})
	case errors.Is(err, ErrAnonymousLimit):
		writeJSON(w, http.StatusServiceUnavailable, transportError{Error: "too_many_anonymous_sessions", Retryable: true,
			Message: "the sessions reserved without credentials are at their limit: retry, or send credentials (Authorization: Bearer) with POST /session"})
	case errors.Is(err, ErrClientLimit):
		w.Header().Set("Retry-After", strconv.Itoa(int(f.cfg.HandshakeTimeout.Seconds())))
		writeJSON(w, http.StatusTooManyRequests, transportError{Error: "too_many_client_sessions", Retryable: true,
			Message: fmt.Sprintf("this client already holds %d sessions awaiting their handshake: complete or abandon one (each expires %v after POST /session), or send credentials with POST /session",
				f.cfg.MaxSessionsPerClient, f.cfg.HandshakeTimeout)})
	default:
		f.deps.Logger.Error("a2efront: creating a session", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, transportError{Error: "unavailable", Retryable: true})
	}
}

// clientKey is the client an anonymous reservation counts against: the
// remote address's IP, or its /64 for IPv6 (one host usually holds a
// whole /64). An address that does not parse counts as one client.
func clientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "unknown"
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.Prefix(64)
	return p.String()
}

// forged handles a session record that failed its MAC: it is logged,
// audited and deleted, and the caller is told the session is unknown.
func (f *Front) forged(ctx context.Context, h *upstream, id string) {
	ref := sessionRef(id)
	f.deps.Logger.Error("a2efront: a session record failed authentication; deleting the session", "host", h.Name, "session", ref)
	f.deps.Audit.LogAttrs(ctx, slog.LevelWarn, EventForgedRecord, slog.String("session", ref), slog.String("host", h.Name))
	if err := f.deps.Sessions.Delete(context.WithoutCancel(ctx), id); err != nil {
		f.deps.Logger.Warn("a2efront: deleting a forged session record", "session", ref, "error", err)
	}
}
