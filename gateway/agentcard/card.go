package agentcard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/capgate/capgate/policy"
)

// ExtensionURI identifies the A2A capability-negotiation extension.
const ExtensionURI = "https://github.com/a2aproject/A2A/sep/capability-negotiation"

// MaxCardBytes bounds the size of an upstream card.
const MaxCardBytes = 256 << 10

// Grant is a capability grant as it appears in a card (SEP
// capabilityGrants): the wire form of policy.Grant.
type Grant struct {
	ID          string   `json:"id"`
	Description string   `json:"description,omitempty"`
	Operations  []string `json:"operations"`
	Attenuable  bool     `json:"attenuable"`
	Requires    []string `json:"requires,omitempty"`
	Legacy      bool     `json:"legacy,omitempty"`
	// WholeAgent marks a grant over the agent as a whole: its capabilities
	// name no resources, and a request for it carries no resourceQuery.
	WholeAgent bool `json:"wholeAgent,omitempty"`
}

// wireGrant is g as a card lists it.
func wireGrant(g policy.Grant) Grant {
	return Grant{ID: g.ID, Description: g.Description, Operations: g.Operations, Attenuable: g.Attenuable,
		Requires: g.Requires, Legacy: g.Legacy, WholeAgent: g.WholeAgent}
}

// Config describes one agent's card source and what the gateway adds.
type Config struct {
	// Agent is the agent's name under /a2a/.
	Agent string
	// CardURLs are tried in order (agent-card.json, then agent.json).
	CardURLs []*url.URL
	// PublicURL is the gateway URL the card's url must point at.
	PublicURL string
	// Grants replace the card's capabilityGrants.
	Grants []policy.Grant
	// Legacy marks an agent that does not understand capabilities; its
	// card does not declare the extension as required.
	Legacy bool
	// Refresh is how long a fetched card is served before refetching.
	Refresh time.Duration
	// Timeout bounds one fetch.
	Timeout time.Duration
	// OIDCIssuers are the issuer URLs of the trusted OpenID Connect
	// providers; the served card declares an OpenID Connect security
	// scheme for each, with the issuer's discovery URL.
	OIDCIssuers []string
	// Sign, when set, signs each rewritten card: its result is the one
	// entry of the served card's signatures. A card it cannot sign is not
	// served (ErrUnsigned): a source that signs never serves a card
	// unsigned, nor with another signature.
	Sign func(card map[string]any) (any, error)
}

// Source fetches, rewrites and caches one agent's card.
type Source struct {
	cfg    Config
	client *http.Client
	now    func() time.Time
	logger *slog.Logger

	mu      sync.Mutex
	card    []byte
	raw     map[string]any
	fetched time.Time
}

// NewSource returns a card source. transport carries the fetches; it should
// be the same transport the proxy uses for this agent, so that the
// gateway's upstream credential is sent.
func NewSource(cfg Config, transport http.RoundTripper, now func() time.Time, logger *slog.Logger) *Source {
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	return &Source{
		cfg:    cfg,
		now:    now,
		logger: logger,
		client: &http.Client{
			Transport: transport,
			Timeout:   cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return ErrRedirect
			},
		},
	}
}

// Card returns the rewritten card as JSON, and the upstream card as
// decoded (Decode), from the cache when it is fresh. A card is served, and
// the upstream card given to the gateway's checks, only when both can be
// had: an upstream card that cannot be fetched (ErrFetch), that Decode
// refuses (ErrCardRefused) or whose served card cannot be signed
// (ErrUnsigned) is an error. When a refresh fails, the last good card
// keeps serving and the error is logged.
func (s *Source) Card(ctx context.Context) ([]byte, map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.card != nil && s.now().Sub(s.fetched) < s.cfg.Refresh {
		return s.card, s.raw, nil
	}
	raw, err := s.fetch(ctx)
	var card []byte
	if err == nil {
		card, err = s.serve(ctx, raw)
	}
	if err != nil {
		if s.card != nil {
			s.logger.WarnContext(ctx, "agent card refresh failed; serving cached card",
				"agent", s.cfg.Agent, "error", err)
			return s.card, s.raw, nil
		}
		return nil, nil, err
	}
	s.card, s.raw, s.fetched = card, raw, s.now()
	return card, raw, nil
}

// serve returns the card served for the upstream card raw: rewritten,
// signed when the source signs, as JSON. The members of raw it drops, as
// capgate does not know them, are logged.
func (s *Source) serve(ctx context.Context, raw map[string]any) ([]byte, error) {
	if _, dropped := known(raw); len(dropped) > 0 {
		s.logger.WarnContext(ctx, "agent card members unknown to capgate dropped from the served card",
			"agent", s.cfg.Agent, "members", dropped)
	}
	card, err := s.signed(Rewrite(raw, s.cfg))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(card)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	return b, nil
}

// Cached returns the upstream card last fetched, or nil when none has
// been, without fetching: for checks that must not hold a call up.
func (s *Source) Cached() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw
}

func (s *Source) fetch(ctx context.Context) (map[string]any, error) {
	var errs []error
	for _, u := range s.cfg.CardURLs {
		card, err := s.fetchOne(ctx, u)
		if err == nil {
			return card, nil
		}
		errs = append(errs, err)
		if errors.Is(err, ErrCardRefused) {
			break // the next URL is for a card not found, not for one refused
		}
	}
	return nil, fmt.Errorf("%w: agent %s: %w", ErrFetch, s.cfg.Agent, errors.Join(errs...))
}

func (s *Source) fetchOne(ctx context.Context, u *url.URL) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: status %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxCardBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxCardBytes {
		return nil, fmt.Errorf("%s: card larger than %d bytes", u, MaxCardBytes)
	}
	card, err := Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return card, nil
}
