package cors

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	rscors "github.com/rs/cors"
)

// Configuration errors, wrapped by Config.Validate and New.
var (
	// ErrWildcardWithCredentials refuses "*" together with credentials.
	ErrWildcardWithCredentials = errors.New(`cors: the "*" origin cannot be combined with allow_credentials`)
	// ErrInvalidOrigin means an allowed origin is not "*" and not a bare
	// http(s) origin such as https://app.example.com:8443.
	ErrInvalidOrigin = errors.New("cors: invalid origin")
)

// Config is the CORS configuration. The zero value turns CORS off.
type Config struct {
	// AllowedOrigins lists the origins that may call the gateway, each
	// "*" or scheme://host[:port] without path. Empty means CORS is off.
	AllowedOrigins []string
	// AllowCredentials lets the browser send cookies and TLS client
	// certificates. Never with the "*" origin.
	AllowCredentials bool
	// MaxAge is how long a browser may cache a preflight answer; zero
	// leaves it to the browser's default.
	MaxAge time.Duration
}

// AllowedHeaders returns the request headers a cross-origin page may send:
// the credential, the body type, the A2A version and extension headers
// (both A2A-Extensions and v0.3's X-A2A-Extensions), the capability
// headers a caller may present, the A2E session header, and the W3C trace
// context. The slice is fresh on every call.
func AllowedHeaders() []string {
	return []string{
		"Authorization", "Content-Type", "Accept",
		"A2A-Version", "A2A-Extensions", "X-A2A-Extensions",
		"A2A-Capability", "A2A-Capability-Id",
		"X-Session-Id", "traceparent", "tracestate",
	}
}

// ExposedHeaders returns the response headers a cross-origin page may
// read. The slice is fresh on every call.
func ExposedHeaders() []string {
	return []string{"WWW-Authenticate", "Retry-After", "A2A-Extensions", "X-A2A-Extensions", "X-Session-Id"}
}

// Enabled reports whether any origin is allowed.
func (c Config) Enabled() bool { return len(c.AllowedOrigins) > 0 }

// Validate checks every origin and refuses "*" with credentials. It wraps
// ErrInvalidOrigin or ErrWildcardWithCredentials.
func (c Config) Validate() error {
	var errs []error
	for i, o := range c.AllowedOrigins {
		if o == "*" {
			if c.AllowCredentials {
				errs = append(errs, ErrWildcardWithCredentials)
			}
			continue
		}
		if problem := checkOrigin(o); problem != "" {
			errs = append(errs, fmt.Errorf("%w: allowed_origins[%d] %q: %s", ErrInvalidOrigin, i, o, problem))
		}
	}
	if c.MaxAge < 0 {
		errs = append(errs, errors.New("cors: max_age must not be negative"))
	}
	return errors.Join(errs...)
}

// checkOrigin accepts a serialised origin: http or https, a host, an
// optional port, and nothing else. It returns what is wrong, or "".
func checkOrigin(o string) string {
	u, err := url.Parse(o)
	switch {
	case err != nil:
		return "not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "scheme must be http or https"
	case u.Host == "" || u.Hostname() == "":
		return "no host"
	case u.User != nil, u.Path != "", u.RawQuery != "", u.Fragment != "", u.Opaque != "", strings.HasSuffix(o, "?"), strings.HasSuffix(o, "#"):
		return "an origin has no path, query, fragment or user"
	case strings.Contains(o, "*"):
		return `wildcards are not supported; list each origin or use "*" alone`
	}
	return ""
}

// New returns the CORS middleware for cfg, or an error when cfg is
// invalid. With no allowed origins it returns the identity middleware.
func New(cfg Config) (func(http.Handler) http.Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return func(next http.Handler) http.Handler { return next }, nil
	}
	maxAge := int(cfg.MaxAge / time.Second)
	c := rscors.New(rscors.Options{
		AllowedOrigins:   cfg.AllowedOrigins,
		AllowedMethods:   []string{http.MethodGet, http.MethodPost},
		AllowedHeaders:   AllowedHeaders(),
		ExposedHeaders:   ExposedHeaders(),
		AllowCredentials: cfg.AllowCredentials,
		MaxAge:           maxAge,
	})
	return c.Handler, nil
}

// Middleware is New for a config already validated (config loading
// refuses an invalid one). Should cfg be invalid all the same, it fails
// closed: CORS stays off and no cross-origin page is let in.
func Middleware(cfg Config) func(http.Handler) http.Handler {
	mw, err := New(cfg)
	if err != nil {
		return func(next http.Handler) http.Handler { return next }
	}
	return mw
}
