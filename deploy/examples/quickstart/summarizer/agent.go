package summarizer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// DefaultInvokeTimeout bounds one retrieve_document call when
// Options.InvokeTimeout is zero.
const DefaultInvokeTimeout = 10 * time.Second

// AgentName is the summarizer's card name.
const AgentName = "summarizer"

// Options configure an [Agent]. BaseURL, DocumentsURL, Credential, Logger
// and Now are required.
type Options struct {
	// BaseURL is the agent's own base URL, published as the card's url.
	BaseURL string
	// DocumentsURL is the gateway's JSON-RPC endpoint for the documents
	// agent, e.g. "http://127.0.0.1:8080/a2a/documents". Capability tokens
	// and Credential are only ever sent there.
	DocumentsURL string
	// FilesURL, when set, is the gateway's MCP endpoint for the files
	// server, e.g. "http://127.0.0.1:8080/mcp/files": the handles of a
	// capability whose grant starts with FilesGrantPrefix are read there
	// with read_file. Capabilities and Credential are only ever sent
	// there. Without it such handles are reported as failed.
	FilesURL string
	// Credential is the summarizer's own gateway credential, sent as
	// "Authorization: Bearer <Credential>" (quickstart: summarizer-dev-key).
	Credential string
	// HTTPClient calls the gateway; nil means a client with a 30 s timeout.
	// Redirects are never followed (see the client package).
	HTTPClient *http.Client
	// Logger receives refusals and failures (never tokens).
	Logger *slog.Logger
	// Now is the agent's clock (recorded request times).
	Now func() time.Time
	// Recorder records every request the agent receives; nil means a new one.
	Recorder *documents.Recorder
	// InvokeTimeout bounds each retrieve_document call; zero means
	// DefaultInvokeTimeout.
	InvokeTimeout time.Duration
}

// Validate reports every problem with o, joined.
func (o Options) Validate() error {
	var errs []error
	if err := documents.ValidateBaseURL(o.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("%w: BaseURL: %w", ErrInvalidOptions, err))
	}
	if err := documents.ValidateBaseURL(o.DocumentsURL); err != nil {
		errs = append(errs, fmt.Errorf("%w: DocumentsURL: %w", ErrInvalidOptions, err))
	}
	if o.Credential == "" {
		errs = append(errs, fmt.Errorf("%w: Credential is required", ErrInvalidOptions))
	}
	if o.Logger == nil {
		errs = append(errs, fmt.Errorf("%w: Logger is required", ErrInvalidOptions))
	}
	if o.Now == nil {
		errs = append(errs, fmt.Errorf("%w: Now is required", ErrInvalidOptions))
	}
	if o.InvokeTimeout < 0 {
		errs = append(errs, fmt.Errorf("%w: InvokeTimeout is negative", ErrInvalidOptions))
	}
	return errors.Join(errs...)
}

// Agent is the quickstart summarizer agent. Build it with [New]; serve
// [Agent.Handler].
type Agent struct {
	recorder *documents.Recorder
	card     []byte
	handler  http.Handler
}

// New validates opts and returns the agent.
func New(opts Options) (*Agent, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	inv, err := newInvoker(opts.DocumentsURL, opts.Credential, opts.HTTPClient)
	if err != nil {
		return nil, err
	}
	timeout := opts.InvokeTimeout
	if timeout == 0 {
		timeout = DefaultInvokeTimeout
	}
	a := &Agent{recorder: opts.Recorder}
	if a.recorder == nil {
		a.recorder = documents.NewRecorder()
	}
	card, err := documents.MarshalCard(Card(opts.BaseURL), cardExtras())
	if err != nil {
		return nil, err
	}
	a.card = card
	exec := &executor{invoker: inv, logger: opts.Logger, timeout: timeout}
	if opts.FilesURL != "" {
		if exec.files, err = newFileReader(opts.FilesURL, opts.Credential, opts.HTTPClient); err != nil {
			return nil, err
		}
	}
	front, err := documents.NewFront(documents.FrontConfig{
		Logger: opts.Logger, Now: opts.Now, Recorder: a.recorder, Card: card,
		Standard: a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec, a2asrv.WithLogger(opts.Logger))),
		Prepare:  prepare,
	})
	if err != nil {
		return nil, err
	}
	a.handler = front
	return a, nil
}

// prepare stashes params.capabilities of a send in the executor's context:
// a2asrv parses params into its own type and drops unknown members.
func prepare(ctx context.Context, call documents.Call) (context.Context, error) {
	if !documents.IsSendMethod(call.Canonical) {
		return ctx, nil
	}
	caps, err := ParseDelegated(call.Params)
	if err != nil {
		return ctx, err
	}
	return withDelegation(ctx, caps), nil
}

// Handler returns the agent's HTTP handler: POST JSON-RPC on any path, GET
// the card at …/.well-known/agent-card.json and …/.well-known/agent.json.
func (a *Agent) Handler() http.Handler { return a.handler }

// Recorder returns the recorder that sees every request the agent receives.
func (a *Agent) Recorder() *documents.Recorder { return a.recorder }

// CardJSON returns the served agent card.
func (a *Agent) CardJSON() []byte { return append([]byte(nil), a.card...) }

// Card returns the summarizer's card as a2a.AgentCard with url baseURL.
// The served card adds the protocol version range and states
// capabilities.streaming false explicitly.
func Card(baseURL string) a2a.AgentCard {
	return a2a.AgentCard{
		Name:               AgentName,
		Description:        "Quickstart summarizer: given delegated capabilities, retrieves each designated document through the gateway and answers with its title and first line.",
		URL:                baseURL,
		Version:            documents.AgentVersion,
		ProtocolVersion:    documents.ProtocolVersion,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Capabilities: a2a.AgentCapabilities{
			Extensions: []a2a.AgentExtension{documents.CapabilityExtension()},
		},
		Skills: []a2a.AgentSkill{{
			ID: "summarize_documents", Name: "Summarize documents", Tags: []string{"documents", "summary"},
			Description: "Summarizes the documents designated by the capabilities delegated with the message.",
		}},
	}
}

func cardExtras() map[string]any {
	return map[string]any{
		"capabilities":         map[string]any{"streaming": false},
		"min_protocol_version": documents.MinProtocolVersion,
		"max_protocol_version": documents.MaxProtocolVersion,
	}
}
