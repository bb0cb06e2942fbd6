package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultMaxResponseBytes bounds an answer when Options.MaxResponseBytes is
// zero.
const DefaultMaxResponseBytes = 4 << 20

// DefaultTimeout is the timeout of the HTTP client used when
// Options.HTTPClient is nil.
const DefaultTimeout = 30 * time.Second

// agentName is what the gateway accepts as /a2a/{agent}.
var agentName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

// Options configure a Client.
type Options struct {
	// HTTPClient makes the calls; nil means a client with DefaultTimeout.
	// The Client uses a copy whose CheckRedirect refuses every redirect, so
	// tokens and the credential never follow one; the caller's client is
	// not changed.
	HTTPClient *http.Client
	// Credential is the caller's own gateway credential (an OIDC access
	// token or, in the quickstart, a dev API key), sent as
	// "Authorization: Bearer <Credential>". Empty sends none.
	Credential string
	// MaxResponseBytes bounds one answer; zero means DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

// Client calls one agent through the gateway: POST {gateway}/a2a/{agent}.
// It is safe for concurrent use.
type Client struct {
	gateway  string // base URL without a trailing slash; empty for NewEndpoint
	agent    string
	endpoint string
	opts     Options
	http     *http.Client
	nextID   atomic.Int64
}

// New returns a client for agent behind the gateway at gatewayURL (e.g.
// "https://capgate.example.com"; a path prefix is kept). The URL must be
// absolute http(s) without user info, query or fragment.
func New(gatewayURL, agent string, opts Options) (*Client, error) {
	base, err := checkBase(gatewayURL)
	if err != nil {
		return nil, err
	}
	if !agentName.MatchString(agent) {
		return nil, fmt.Errorf("%w: agent %q must be lower-case letters, digits and dashes", ErrInvalidOptions, agent)
	}
	return newClient(base, agent, base+"/a2a/"+agent, opts)
}

// NewEndpoint returns a client that posts every call to endpoint exactly,
// for callers configured with an agent's whole gateway URL (e.g.
// "http://127.0.0.1:8080/a2a/documents"). For cannot be used on it.
func NewEndpoint(endpoint string, opts Options) (*Client, error) {
	u, err := checkBase(endpoint)
	if err != nil {
		return nil, err
	}
	return newClient("", "", u, opts)
}

func newClient(gateway, agent, endpoint string, opts Options) (*Client, error) {
	if opts.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("%w: MaxResponseBytes is negative", ErrInvalidOptions)
	}
	if strings.ContainsAny(opts.Credential, "\r\n") {
		return nil, fmt.Errorf("%w: Credential contains a line break", ErrInvalidOptions)
	}
	if opts.MaxResponseBytes == 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	hc := &http.Client{Timeout: DefaultTimeout}
	if opts.HTTPClient != nil {
		cp := *opts.HTTPClient
		hc = &cp
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return ErrRedirect }
	return &Client{gateway: gateway, agent: agent, endpoint: endpoint, opts: opts, http: hc}, nil
}

// For returns a client for another agent behind the same gateway, with the
// same options: the way to delegate to, say, the summarizer with
// capabilities obtained from the documents agent. It fails on a client
// made by NewEndpoint.
func (c *Client) For(agent string) (*Client, error) {
	if c.gateway == "" {
		return nil, fmt.Errorf("%w: a client made by NewEndpoint does not know its gateway", ErrInvalidOptions)
	}
	return New(c.gateway, agent, c.opts)
}

// Endpoint returns the URL every call is posted to.
func (c *Client) Endpoint() string { return c.endpoint }

// checkBase validates an absolute http(s) URL and returns it without a
// trailing slash.
func checkBase(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w: %q is not a URL", ErrInvalidOptions, raw)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "", fmt.Errorf("%w: %q is not an absolute http(s) URL", ErrInvalidOptions, raw)
	case u.User != nil:
		return "", fmt.Errorf("%w: the gateway URL must not carry credentials; use Options.Credential", ErrInvalidOptions)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", fmt.Errorf("%w: %q must not have a query or fragment", ErrInvalidOptions, raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// transportError wraps a failure of http.Client.Do. A refused redirect is
// reported as ErrRedirect, not as a transport failure.
func transportError(err error) error {
	if errors.Is(err, ErrRedirect) {
		return ErrRedirect
	}
	return fmt.Errorf("%w: %w", ErrTransport, err)
}
