package a2efront

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/policy"
)

// Defaults of Config.
const (
	DefaultMaxEventBytes        = 4 << 20
	DefaultMaxSessions          = 10000
	DefaultSessionTTL           = time.Hour
	DefaultHandshakeTimeout     = 30 * time.Second
	DefaultRequestTimeout       = 5 * time.Minute
	DefaultUpstreamTimeout      = 10 * time.Second
	DefaultMaxHandshakeAttempts = 3
	// DefaultMaxSessionsPerClient bounds the sessions one client address
	// may hold reserved without credentials.
	DefaultMaxSessionsPerClient = 8
	// MaxAgentCaps bounds the distinct capabilities one handshake/req may
	// request.
	MaxAgentCaps = 32
)

// Config configures a Front. Zero durations and sizes take the defaults.
type Config struct {
	// Hosts are the A2E hosts fronted at /a2e/{name}/.
	Hosts []Host
	// MaxLineBytes bounds one /send line; zero means
	// a2e.DefaultMaxLineBytes. A longer line is refused with 413.
	MaxLineBytes int
	// MaxEventBytes bounds one event on a host's stream; zero means
	// DefaultMaxEventBytes. A longer event ends the stream.
	MaxEventBytes int
	// MaxSessions bounds the live sessions across all hosts (and, with a
	// shared store, all replicas); zero means DefaultMaxSessions.
	MaxSessions int
	// MaxAnonymousSessions bounds the live sessions reserved without
	// credentials whose handshake has not authenticated, out of
	// MaxSessions, so that callers who send credentials on POST /session
	// always find room; zero means a tenth of MaxSessions (at least one).
	// It must be below MaxSessions.
	MaxAnonymousSessions int
	// MaxSessionsPerClient bounds those reserved from one client address
	// (an IPv4 address, or an IPv6 /64), so that one client cannot take
	// the anonymous share alone; zero means DefaultMaxSessionsPerClient.
	MaxSessionsPerClient int
	// SessionTTL bounds the whole life of an authenticated session,
	// counted from POST /session; zero means DefaultSessionTTL.
	SessionTTL time.Duration
	// HandshakeTimeout is the life of a session that has not completed its
	// handshake; zero means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// RequestTimeout is how long a forwarded request counts against
	// max_parallel without a response; zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// UpstreamTimeout bounds POST /session and POST /send to a host; zero
	// means DefaultUpstreamTimeout.
	UpstreamTimeout time.Duration
	// MaxParallel, when positive, caps the max_parallel a host announces.
	MaxParallel int
	// MaxHandshakeAttempts bounds the handshake/req messages a session may
	// send before it is closed; zero means DefaultMaxHandshakeAttempts.
	MaxHandshakeAttempts int
}

// Host is one upstream A2E host.
type Host struct {
	// Name is the {host} path segment and the policy's host name.
	Name string
	// URL is the base of the host's transport, e.g.
	// "http://127.0.0.1:9103/"; session, send and stream are resolved
	// against it.
	URL string
	// AuthToken is the host's own shared secret. It replaces the caller's
	// auth_token in every forwarded handshake/req; the caller's credential
	// never reaches the host.
	AuthToken string
	// Version is the protocol version the host speaks; empty means
	// a2e.Version1. A handshake/req naming another is refused with
	// version_mismatch.
	Version string
	// Capabilities, when not empty, lists what the host offers. A
	// requested capability outside it is never forwarded and is answered
	// enabled:false with reason "no plugin loaded", whatever the policy
	// says. Empty means the host alone decides among what policy allows.
	Capabilities []string
	// RequireCredentials makes every request to the host's routes carry
	// the caller's credentials (Authorization: Bearer), authenticating as
	// the session's principal: a leaked session id is then not enough. For
	// clients that can send them; a stock A2E client cannot.
	RequireCredentials bool
}

// Validate reports every problem with c, each wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if len(c.Hosts) == 0 {
		bad("no hosts")
	}
	seen := map[string]bool{}
	for i, h := range c.Hosts {
		if seen[h.Name] {
			bad("hosts[%d]: duplicate name %q", i, h.Name)
		}
		seen[h.Name] = true
		for _, p := range h.problems() {
			bad("hosts[%d] (%s): %s", i, h.Name, p)
		}
	}
	for name, v := range map[string]int64{
		"max_line_bytes": int64(c.MaxLineBytes), "max_event_bytes": int64(c.MaxEventBytes),
		"max_sessions": int64(c.MaxSessions), "session_ttl": int64(c.SessionTTL),
		"max_anonymous_sessions": int64(c.MaxAnonymousSessions), "max_sessions_per_client": int64(c.MaxSessionsPerClient),
		"handshake_timeout": int64(c.HandshakeTimeout), "request_timeout": int64(c.RequestTimeout),
		"upstream_timeout": int64(c.UpstreamTimeout), "max_parallel": int64(c.MaxParallel),
		"max_handshake_attempts": int64(c.MaxHandshakeAttempts),
	} {
		if v < 0 {
			bad("%s is negative", name)
		}
	}
	if d := c.withDefaults(); c.MaxAnonymousSessions > 0 && d.MaxAnonymousSessions >= d.MaxSessions {
		bad("max_anonymous_sessions (%d) must be below max_sessions (%d)", d.MaxAnonymousSessions, d.MaxSessions)
	}
	return errors.Join(errs...)
}

func (h Host) problems() []string {
	var out []string
	if !validHostName(h.Name) {
		out = append(out, "name must be 1 to 64 characters of [a-z0-9_-]")
	}
	u, err := url.Parse(h.URL)
	switch {
	case err != nil:
		out = append(out, "url: "+err.Error())
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.RawQuery != "", u.Fragment != "", u.User != nil:
		out = append(out, "url must be an absolute http(s) URL without credentials, query or fragment")
	}
	if h.AuthToken == "" {
		out = append(out, "auth_token is required (the host's own shared secret)")
	}
	for _, c := range h.Capabilities {
		if !policy.IsA2ECapability(c) {
			out = append(out, fmt.Sprintf("unknown capability %q", c))
		}
	}
	return out
}

func validHostName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxLineBytes, a2e.DefaultMaxLineBytes)
	def(&c.MaxEventBytes, DefaultMaxEventBytes)
	def(&c.MaxSessions, DefaultMaxSessions)
	def(&c.MaxAnonymousSessions, max(1, c.MaxSessions/10))
	def(&c.MaxSessionsPerClient, DefaultMaxSessionsPerClient)
	def(&c.MaxHandshakeAttempts, DefaultMaxHandshakeAttempts)
	defDur(&c.SessionTTL, DefaultSessionTTL)
	defDur(&c.HandshakeTimeout, DefaultHandshakeTimeout)
	defDur(&c.RequestTimeout, DefaultRequestTimeout)
	defDur(&c.UpstreamTimeout, DefaultUpstreamTimeout)
	return c
}
