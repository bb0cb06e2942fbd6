package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// DefaultMaxBodyBytes is the request body limit when FrontConfig leaves it zero.
const DefaultMaxBodyBytes = 1 << 20

// Call is one JSON-RPC request as the front hands it to an extension
// method or to FrontConfig.Prepare.
type Call struct {
	// Method is the JSON-RPC method as received.
	Method string
	// Canonical is the v0.3 name for a standard method, else Method.
	Canonical string
	// Params is the raw params member (after NormalizeSendParams for send
	// methods).
	Params json.RawMessage
	// Header holds the HTTP request headers (the gateway's trusted
	// A2A-Capability-* headers among them).
	Header http.Header
}

// ExtensionFunc serves one non-standard JSON-RPC method. A returned error
// is mapped with [ToRPCError].
type ExtensionFunc func(ctx context.Context, call Call) (any, error)

// FrontConfig configures a [Front].
type FrontConfig struct {
	// Logger receives one line per refused request. Required.
	Logger *slog.Logger
	// Now stamps recorded requests. Required.
	Now func() time.Time
	// Recorder, when set, records every HTTP request before it is parsed.
	Recorder *Recorder
	// Card is the agent card JSON served on GET …/.well-known/agent-card.json
	// and the legacy …/.well-known/agent.json. Required.
	Card []byte
	// Standard serves the v0.3 standard methods, normally
	// a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(executor)). Required.
	Standard http.Handler
	// Extensions serves other methods by exact name.
	Extensions map[string]ExtensionFunc
	// Prepare, when set, runs before a standard call is handed to Standard
	// and may derive the context the a2asrv executor will see (context
	// values survive into AgentExecutor.Execute). An error refuses the call.
	Prepare func(ctx context.Context, call Call) (context.Context, error)
	// MaxBodyBytes bounds the request body; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// Validate reports every missing required field, joined.
func (c FrontConfig) Validate() error {
	var errs []error
	if c.Logger == nil {
		errs = append(errs, fmt.Errorf("%w: front: Logger is required", ErrInvalidOptions))
	}
	if c.Now == nil {
		errs = append(errs, fmt.Errorf("%w: front: Now is required", ErrInvalidOptions))
	}
	if len(c.Card) == 0 {
		errs = append(errs, fmt.Errorf("%w: front: Card is required", ErrInvalidOptions))
	}
	if c.Standard == nil {
		errs = append(errs, fmt.Errorf("%w: front: Standard is required", ErrInvalidOptions))
	}
	if c.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("%w: front: MaxBodyBytes is negative", ErrInvalidOptions))
	}
	return errors.Join(errs...)
}

// Front is the thin JSON-RPC layer each quickstart agent puts before
// a2asrv. It records every request, serves the agent card, rewrites
// standard method names of every A2A generation to v0.3 (see
// [CanonicalMethod]) and normalizes send params before handing the call
// to a2asrv, answers a v1.0 method in the v1.0 shapes (a2asrv itself
// speaks v0.3), and serves extension methods itself. Batches are refused.
type Front struct {
	cfg FrontConfig
}

// NewFront validates cfg and returns a Front.
func NewFront(cfg FrontConfig) (*Front, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return &Front{cfg: cfg}, nil
}

// ServeHTTP implements http.Handler.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, readErr := io.ReadAll(io.LimitReader(r.Body, f.cfg.MaxBodyBytes+1))
	tooLarge := int64(len(body)) > f.cfg.MaxBodyBytes
	f.record(r, body)
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		f.serveCard(w, r)
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case readErr != nil:
		writeRPCError(w, http.StatusBadRequest, nil, fmt.Errorf("%w: reading body", ErrInvalidRequest))
	case tooLarge:
		writeRPCError(w, http.StatusRequestEntityTooLarge, nil, ErrBodyTooLarge)
	default:
		f.serveRPC(w, r, body)
	}
}

func (f *Front) record(r *http.Request, body []byte) {
	if f.cfg.Recorder == nil {
		return
	}
	var env struct {
		Method string `json:"method"`
	}
	if _, isObject := firstByte(body); isObject {
		_ = json.Unmarshal(body, &env)
	}
	f.cfg.Recorder.Record(RecordedRequest{
		Time: f.cfg.Now(), Method: r.Method, Path: r.URL.Path,
		RPCMethod: env.Method, Header: r.Header, Body: body,
	})
}

func (f *Front) serveCard(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if !strings.HasSuffix(p, "/.well-known/agent-card.json") && !strings.HasSuffix(p, "/.well-known/agent.json") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(f.cfg.Card)
}

func (f *Front) serveRPC(w http.ResponseWriter, r *http.Request, body []byte) {
	req, err := parseRequest(body)
	if err != nil {
		f.cfg.Logger.InfoContext(r.Context(), "refused JSON-RPC request", "err", err)
		writeRPCError(w, http.StatusOK, req.ID, err)
		return
	}
	call := Call{Method: req.Method, Canonical: req.Method, Params: req.Params, Header: r.Header}
	if canonical, ok := CanonicalMethod(req.Method); ok {
		call.Canonical = canonical
		f.serveStandard(w, r, req, call)
		return
	}
	fn, ok := f.cfg.Extensions[req.Method]
	if !ok {
		writeRPCError(w, http.StatusOK, req.ID, fmt.Errorf("%w: %q", ErrMethodNotFound, req.Method))
		return
	}
	result, err := fn(r.Context(), call)
	switch {
	case req.ID == nil:
		w.WriteHeader(http.StatusNoContent)
	case err != nil:
		f.cfg.Logger.InfoContext(r.Context(), "extension call refused", "method", req.Method, "err", err)
		writeRPCError(w, http.StatusOK, req.ID, err)
	default:
		writeRPC(w, http.StatusOK, rpcResponse{ID: req.ID, Result: result})
	}
}

// serveStandard rewrites the request to its v0.3 form and hands it to
// a2asrv; the answer to a v1.0 method is rewritten to its v1.0 shape.
func (f *Front) serveStandard(w http.ResponseWriter, r *http.Request, req rpcRequest, call Call) {
	ctx := r.Context()
	if IsSendMethod(call.Canonical) {
		params, err := NormalizeSendParams(call.Params)
		if err != nil {
			writeRPCError(w, http.StatusOK, req.ID, err)
			return
		}
		call.Params = params
	}
	if f.cfg.Prepare != nil {
		var err error
		if ctx, err = f.cfg.Prepare(ctx, call); err != nil {
			writeRPCError(w, http.StatusOK, req.ID, err)
			return
		}
	}
	id := req.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	rewritten, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: id, Method: call.Canonical, Params: call.Params})
	if err != nil {
		writeRPCError(w, http.StatusOK, req.ID, err)
		return
	}
	r2 := r.Clone(ctx)
	r2.Body = io.NopCloser(bytes.NewReader(rewritten))
	r2.ContentLength = int64(len(rewritten))
	if call.Canonical != MethodMessageStream && call.Canonical != "tasks/resubscribe" {
		w.Header().Set("Content-Type", "application/json")
	}
	if wrapped, ok := v1Answer(req.Method); ok {
		v1 := newV1Writer(w, wrapped)
		f.cfg.Standard.ServeHTTP(v1, r2)
		v1.finish()
		return
	}
	f.cfg.Standard.ServeHTTP(w, r2)
}

// parseRequest decodes a single JSON-RPC 2.0 request. On error the
// returned request carries whatever ID could be read.
func parseRequest(body []byte) (rpcRequest, error) {
	var req rpcRequest
	first, isObject := firstByte(body)
	if first == '[' {
		return req, ErrBatchUnsupported
	}
	if !json.Valid(body) {
		return req, ErrParse
	}
	if !isObject {
		return req, fmt.Errorf("%w: not a JSON object", ErrInvalidRequest)
	}
	if err := decodeStrict(body, &req, ErrInvalidRequest, "jsonrpc", "id", "method", "params"); err != nil {
		return rpcRequest{}, err
	}
	if req.JSONRPC != "2.0" {
		return req, fmt.Errorf("%w: jsonrpc must be \"2.0\"", ErrInvalidRequest)
	}
	if req.Method == "" {
		return req, fmt.Errorf("%w: method is required", ErrInvalidRequest)
	}
	if id, _ := firstByte(req.ID); id == '{' || id == '[' {
		return rpcRequest{}, fmt.Errorf("%w: id must be a string, number or null", ErrInvalidRequest)
	}
	return req, nil
}
