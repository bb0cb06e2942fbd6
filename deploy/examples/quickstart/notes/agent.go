package notes

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/capgate/capgate/gateway/client"
)

// AgentName is the agent's card name.
const AgentName = "notes"

// MaxBodyBytes bounds one JSON-RPC request body.
const MaxBodyBytes = 1 << 20

// Options configure an [Agent]. BaseURL, Logger and Now are required.
type Options struct {
	// BaseURL is the agent's own base URL, published as the card's url,
	// e.g. "http://127.0.0.1:9104/". It must be an absolute http(s) URL.
	BaseURL string
	// Logger receives a2asrv's logs.
	Logger *slog.Logger
	// Now is the agent's clock: the timestamps of task statuses.
	Now func() time.Time
	// Notes are the notes the agent starts with; nil means SeedNotes().
	// The set of notes is fixed: appends grow existing notes only.
	Notes []Note
	// EchoIDs makes every answer echo the storage ids it touched, in the
	// task's metadata, the artifacts and the status message. It exists for
	// tests that prove a gateway keeps such ids from its callers; an agent
	// serving real callers leaves it off.
	EchoIDs bool
	// Hold, when not nil, keeps every task in state working until Hold is
	// closed or the task is canceled, so tests can follow up on a task
	// still running (tasks/resubscribe, tasks/cancel). Nil never holds.
	Hold <-chan struct{}
}

// Validate reports every problem with o, joined.
func (o Options) Validate() error {
	var errs []error
	if u, err := url.Parse(o.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		errs = append(errs, fmt.Errorf("%w: BaseURL %q must be an absolute http(s) URL without query or fragment", ErrInvalidOptions, o.BaseURL))
	}
	if o.Logger == nil {
		errs = append(errs, fmt.Errorf("%w: Logger is required", ErrInvalidOptions))
	}
	if o.Now == nil {
		errs = append(errs, fmt.Errorf("%w: Now is required", ErrInvalidOptions))
	}
	return errors.Join(errs...)
}

// Agent is the notes agent. Build it with [New]; it is an http.Handler
// serving the JSON-RPC endpoint (POST, any path) and its agent card (GET
// /.well-known/agent-card.json), both with a2asrv's own handlers.
type Agent struct {
	store *store
	card  a2a.AgentCard
	mux   *http.ServeMux
}

var _ http.Handler = (*Agent)(nil)

// New validates opts and returns the agent.
func New(opts Options) (*Agent, error) { return newAgent(opts) }

// newAgent is New with extra a2asrv options, for tests that observe the
// SDK's own machinery.
func newAgent(opts Options, extra ...a2asrv.RequestHandlerOption) (*Agent, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	seed := opts.Notes
	if seed == nil {
		seed = SeedNotes()
	}
	st, err := newStore(seed)
	if err != nil {
		return nil, err
	}
	a := &Agent{store: st, card: Card(opts.BaseURL), mux: http.NewServeMux()}
	exec := &executor{store: st, now: opts.Now, echo: opts.EchoIDs, hold: opts.Hold}
	hopts := append([]a2asrv.RequestHandlerOption{a2asrv.WithLogger(opts.Logger)}, extra...)
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec, hopts...))
	card := a2asrv.NewStaticAgentCardHandler(&a.card)
	a.mux.Handle("GET "+a2asrv.WellKnownAgentCardPath, card)
	a.mux.Handle("OPTIONS "+a2asrv.WellKnownAgentCardPath, card)
	// One line of enforcement: the operations the gateway vouches for
	// reach the executor, which refuses an action outside them.
	a.mux.Handle("POST /", http.MaxBytesHandler(client.VouchedHandler(rpc), MaxBodyBytes))
	return a, nil
}

// ServeHTTP implements http.Handler.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// Card returns the agent's card.
func (a *Agent) Card() a2a.AgentCard { return a.card }

// Note returns the note id as it is now.
func (a *Agent) Note(id string) (Note, bool) {
	n, err := a.store.get(id)
	return n, err == nil
}

// Notes returns every note as it is now, sorted by id: what a gateway's
// resource catalog for this agent would list.
func (a *Agent) Notes() []Note { return a.store.all() }

// Card returns the notes agent's card with url baseURL: A2A 0.3.0 over
// JSON-RPC, streaming, two skills, and no extension.
func Card(baseURL string) a2a.AgentCard {
	return a2a.AgentCard{
		Name:               AgentName,
		Description:        "Keeps short notes: reads them and appends lines to them.",
		URL:                baseURL,
		Version:            "1.0.0",
		ProtocolVersion:    "0.3.0",
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		Skills: []a2a.AgentSkill{
			{
				ID: SkillRead, Name: "Read notes", Tags: []string{"notes", "read"},
				Description: `Reads notes by id: text "read notes/NAME", or a data part {"skill":"notes.read","resourceId":"notes/NAME"}.`,
				Examples:    []string{"read notes/alice-groceries"},
			},
			{
				ID: SkillWrite, Name: "Append to a note", Tags: []string{"notes", "write"},
				Description: `Appends a line to a note: text "append notes/NAME: TEXT", or a data part {"skill":"notes.write","resourceId":"notes/NAME","text":"TEXT"}.`,
				Examples:    []string{"append notes/alice-groceries: butter"},
			},
		},
	}
}
