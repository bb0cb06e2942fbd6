package documents

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/a2aproject/a2a-go/a2asrv"
)

// Options configure an [Agent]. BaseURL, Logger and Now are required.
type Options struct {
	// BaseURL is the agent's own base URL, published as the card's url,
	// e.g. "http://127.0.0.1:9101". It must be an absolute http(s) URL.
	BaseURL string
	// Logger receives refused requests and a2asrv's logs.
	Logger *slog.Logger
	// Now is the agent's clock (recorded request times, status updates).
	Now func() time.Time
	// Recorder records every request; nil means a new one, see
	// [Agent.Recorder].
	Recorder *Recorder
	// Documents replaces the quickstart documents; nil means
	// [SeedDocuments].
	Documents []Document
	// MaxBodyBytes bounds request bodies; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// Validate reports every problem with o, joined.
func (o Options) Validate() error {
	var errs []error
	if err := ValidateBaseURL(o.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("BaseURL: %w", err))
	}
	if o.Logger == nil {
		errs = append(errs, fmt.Errorf("%w: Logger is required", ErrInvalidOptions))
	}
	if o.Now == nil {
		errs = append(errs, fmt.Errorf("%w: Now is required", ErrInvalidOptions))
	}
	if o.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("%w: MaxBodyBytes is negative", ErrInvalidOptions))
	}
	return errors.Join(errs...)
}

// ValidateBaseURL checks that u is an absolute http(s) URL without query
// or fragment, as a card's url or an upstream endpoint must be. Its errors
// match ErrInvalidOptions.
func ValidateBaseURL(u string) error {
	parsed, err := url.Parse(u)
	switch {
	case u == "":
		return fmt.Errorf("%w: URL is required", ErrInvalidOptions)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	case parsed.Scheme != "http" && parsed.Scheme != "https", parsed.Host == "":
		return fmt.Errorf("%w: %q must be an absolute http(s) URL", ErrInvalidOptions, u)
	case parsed.RawQuery != "" || parsed.Fragment != "":
		return fmt.Errorf("%w: %q must not carry a query or fragment", ErrInvalidOptions, u)
	}
	return nil
}

// Agent is the quickstart documents agent. Build it with [New]; serve
// [Agent.Handler].
type Agent struct {
	now      func() time.Time
	docs     *store
	recorder *Recorder
	card     []byte
	handler  http.Handler
}

// New validates opts and returns an agent holding its own copy of the
// documents, its own a2asrv task store and its recorder.
func New(opts Options) (*Agent, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	docs := opts.Documents
	if docs == nil {
		docs = SeedDocuments()
	}
	a := &Agent{now: opts.Now, docs: newStore(docs), recorder: opts.Recorder}
	if a.recorder == nil {
		a.recorder = NewRecorder()
	}
	card, err := MarshalCard(Card(opts.BaseURL), cardExtras())
	if err != nil {
		return nil, err
	}
	a.card = card
	standard := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(executor{now: opts.Now}, a2asrv.WithLogger(opts.Logger)))
	front, err := NewFront(FrontConfig{
		Logger: opts.Logger, Now: opts.Now, Recorder: a.recorder, Card: card, Standard: standard,
		MaxBodyBytes: opts.MaxBodyBytes,
		Extensions: map[string]ExtensionFunc{
			MethodSkillInvoke:      a.invoke,
			MethodResourcesResolve: a.resolve,
		},
	})
	if err != nil {
		return nil, err
	}
	a.handler = front
	return a, nil
}

// Handler returns the agent's HTTP handler: POST JSON-RPC on any path, GET
// the card at …/.well-known/agent-card.json and …/.well-known/agent.json.
func (a *Agent) Handler() http.Handler { return a.handler }

// Recorder returns the recorder that sees every request the agent receives.
func (a *Agent) Recorder() *Recorder { return a.recorder }

// CardJSON returns the served agent card.
func (a *Agent) CardJSON() []byte { return append([]byte(nil), a.card...) }

// Documents returns a snapshot of the agent's current documents, sorted by id.
func (a *Agent) Documents() []Document { return a.docs.all() }
