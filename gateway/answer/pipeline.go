package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// Processor sees one JSON-RPC response object an upstream sent for the
// call c (a unary answer, one element of an array answer, or the data of
// one stream event) and returns it, changed or not. An error refuses that
// response: a *jsonrpc.Error is sent in its place, with the response's
// id; any other error is sent as an internal error. A refused stream ends
// after the refusal.
//
// resp is always valid JSON: the pipeline gives a processor only what the
// answer check accepted, and checks whatever a processor returns changed
// before the next one sees it. A processor never changes resp in place,
// and never keeps resp, or a slice of it, once it returns: the buffer an
// answer is held in is used for another answer once the caller has been
// sent this one (arena.go).
type Processor[C any] func(ctx context.Context, c C, resp json.RawMessage) (json.RawMessage, error)

// LineFilter rewrites a line of a stream event other than its data (an
// event, id or retry field, or a comment); false drops the line.
type LineFilter func(line []byte) ([]byte, bool)

// Options bound and observe a pipeline.
type Options struct {
	// MaxBytes bounds a unary answer and one stream event, which the
	// pipeline must hold whole to process; zero means DefaultMaxBytes.
	// A call may set its own bound (Call.MaxBytes).
	MaxBytes int
	// Logger receives the answers refused; nil discards them.
	Logger *slog.Logger
}

// DefaultMaxBytes is the default bound of an answer and of a stream
// event: 16 MiB. An agent returns a larger artifact as a file part by URI.
const DefaultMaxBytes = 16 << 20

// Pipeline runs every answer of a forwarded call through the strict
// answer check and the processors, in order. It is safe for concurrent
// use.
type Pipeline[C any] struct {
	procs  []Processor[C]
	strict *jsonrpc.Strict
	max    int
	logger *slog.Logger
	// buffers hold unary answers while they are processed, and layouts
	// what their checks learned of them.
	buffers buffers
	layouts sync.Pool
}

// New builds a pipeline applying procs, in order, to every answer.
func New[C any](o Options, procs ...Processor[C]) (*Pipeline[C], error) {
	strict, err := newStrict()
	if err != nil {
		return nil, err
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pipeline[C]{procs: procs, strict: strict, max: o.MaxBytes, logger: o.Logger}, nil
}

// Call is the call an answer belongs to.
type Call[C any] struct {
	// Value is what the processors are given with each response.
	Value C
	// ID is the call's JSON-RPC id, which a refusal carries when the
	// refused response names none.
	ID json.RawMessage
	// Target names the upstream in logs.
	Target string
	// Lines, when set, gives the filter of a stream's lines other than
	// data; it is called once, and only for a stream.
	Lines func() LineFilter
	// Scoped says the call acts under a capability: its answer keeps only
	// the headers a caller needs (proxy.ScopeAnswer), since an upstream
	// may name a real id in any other, and no trailers.
	Scoped bool
	// Shape, when set, puts a refusal the pipeline writes in the shape
	// the caller reads (A2A v1.0's typed details, say).
	Shape func(*jsonrpc.Error) *jsonrpc.Error
	// MaxBytes, when positive, bounds this call's unary answer and each
	// of its stream events in place of the pipeline's Options.MaxBytes
	// (an agent's own limit, say).
	MaxBytes int
	// Halt, when set, is asked before each event of a stream reaches the
	// caller: an error (a *jsonrpc.Error, put in the caller's shape) is
	// sent in the event's place and ends the stream, nothing of the event
	// passing. An operator's freeze ends a stream opened before it so.
	// It runs once per event: it must answer from memory.
	Halt func(ctx context.Context) error
}

// limit is the bound of c's answer under the pipeline's default max.
func (c Call[C]) limit(max int) int {
	if c.MaxBytes > 0 {
		return c.MaxBytes
	}
	return max
}

// shaped is err with its *jsonrpc.Error in the caller's shape.
func (c Call[C]) shaped(err error) error {
	var e *jsonrpc.Error
	if c.Shape == nil || !errors.As(err, &e) {
		return err
	}
	return c.Shape(e)
}

// Modify is a reverse proxy's response hook for one call: a unary answer
// is read whole (within the call's limit) and processed, a
// text/event-stream is processed event by event as each event arrives.
// The caller sees only what the pipeline let through. An answer (or an
// event) over the limit is replaced by -32603 answer_too_large naming the
// limit, and nothing of it reaches the caller.
func (p *Pipeline[C]) Modify(resp *http.Response, c Call[C]) error {
	ctx := resp.Request.Context()
	if c.Scoped {
		proxy.ScopeAnswer(resp)
	}
	limit := c.limit(p.max)
	if isEventStream(resp.Header.Get("Content-Type")) {
		es := newEventStream(ctx, p.chain(c), p.check(c), c.ID, resp.Body, limit)
		es.tooLarge = func() { p.logTooLarge(ctx, c, limit, "stream event") }
		es.shape = c.shaped
		es.halt = c.Halt
		if c.Lines != nil {
			es.line = c.Lines()
		}
		resp.Body = es
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return nil
	}
	// An answer announced longer than the limit is refused unread.
	var body []byte
	var err error
	held := &arena{from: &p.buffers, layouts: &p.layouts}
	tooLarge := resp.ContentLength > int64(limit)
	if !tooLarge {
		body, err = readAnswer(resp.Body, resp.ContentLength, limit, held)
		tooLarge = len(body) > limit
	}
	_ = resp.Body.Close()
	switch {
	case err != nil:
		held.release()
		return fmt.Errorf("answer: reading the upstream answer: %w", err)
	case tooLarge:
		held.release()
		p.logTooLarge(ctx, c, limit, "answer")
		refusal, _ := refuseAnswer(c.ID, c.shaped(AnswerTooLarge(limit)))
		setAnswer(resp, refusal, nil)
		return nil
	}
	if body, err = p.Unary(withArena(ctx, held), c, body); err != nil {
		held.release()
		return err
	}
	held.keepOnly(body)
	setAnswer(resp, body, held)
	return nil
}

// logTooLarge records an answer, or a stream event, of c over limit: the
// caller is told only the limit.
func (p *Pipeline[C]) logTooLarge(ctx context.Context, c Call[C], limit int, what string) {
	p.logger.WarnContext(ctx, "upstream "+what+" refused: larger than the limit; an agent returns a large artifact as a file part by URI",
		"target", c.Target, "limit", limit)
}

// Unary runs a unary answer through the pipeline: one response object,
// or each of an array's, each checked, then processed. It returns what
// the caller gets, or ErrNotJSON when the answer is not JSON at all.
func (p *Pipeline[C]) Unary(ctx context.Context, c Call[C], body []byte) ([]byte, error) {
	if arenaOf(ctx) == nil {
		// Not from Modify: no buffer outlives the call but the layout,
		// which the answer never refers to.
		held := &arena{layouts: &p.layouts}
		defer held.release()
		ctx = withArena(ctx, held)
	}
	return processUnary(ctx, p.chain(c), p.check(c), c.ID, body)
}

// chain applies processors to one response object, in order. resp must
// have passed the answer check, which said whether it holds whitespace
// outside its strings (loose); the chain says the same of what it
// returns.
type chain func(ctx context.Context, resp json.RawMessage, loose bool) (out json.RawMessage, outLoose bool, err error)

// chain is the pipeline's processors bound to c. What a processor changed
// passes the same check as what the upstream sent before the next
// processor, or the caller, sees it: id mapping rewrites member names, and
// two names it maps to one placeholder would be a duplicate the caller's
// reader resolves its own way. The one change not checked again is one
// the id mapping vouches for (vouchFor): it rewrote string values and
// no member name, so the text is as well-formed as before, its names
// untouched, and its whitespace where it was.
func (p *Pipeline[C]) chain(c Call[C]) chain {
	return func(ctx context.Context, resp json.RawMessage, loose bool) (json.RawMessage, bool, error) {
		v := &vouch{Context: ctx}
		for _, proc := range p.procs {
			v.in, v.out = nil, nil
			out, err := proc(v, c.Value, resp)
			if err != nil {
				return nil, false, c.shaped(err)
			}
			vouched := sameText(v.in, resp) && sameText(out, v.out)
			if !sameText(out, resp) && !vouched {
				if loose, err = checkAnswer(out, p.strict); err != nil {
					p.logger.WarnContext(ctx, "upstream answer refused after the gateway's processing (two names mapped to one?)",
						"target", c.Target, "error", err)
					return nil, false, c.shaped(err)
				}
			}
			resp = out
		}
		return resp, loose, nil
	}
}

// sameText reports whether a and b are the very same bytes in memory.
func sameText(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// processUnary runs a unary answer through the chain: one response object,
// or each of an array's, each checked first. An empty answer (to a
// notification) has nothing to process; anything that is not JSON is
// refused. A response the check refuses is replaced by its refusal for
// id, the call's own: the id it carries is part of what was refused.
func processUnary(ctx context.Context, run chain, check answerCheck, id json.RawMessage, body []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return body, nil
	case trimmed[0] == '[':
		return processArray(ctx, run, check, id, trimmed)
	}
	// The check is the only validation: one pass over the answer.
	loose, err := check(ctx, trimmed)
	if err != nil {
		return refuseAnswer(id, err)
	}
	out, _ := processOne(ctx, run, id, trimmed, loose)
	return out, nil
}

// processArray is processUnary on an array answer: each element is
// checked and processed on its own.
func processArray(ctx context.Context, run chain, check answerCheck, id json.RawMessage, arr []byte) ([]byte, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(arr, &elems); err != nil {
		return nil, ErrNotJSON
	}
	for i, e := range elems {
		loose, err := check(ctx, e)
		if err != nil {
			if elems[i], err = refuseAnswer(id, err); err != nil {
				return nil, err
			}
			continue
		}
		elems[i], _ = processOne(ctx, run, id, e, loose)
	}
	return json.Marshal(elems)
}

// processOne runs one response object through the chain and returns what
// the caller gets: the processed object, or the refusal in its place
// (refused is then true), for the response's id or, when it has none, id.
// loose is what the answer check said of resp.
func processOne(ctx context.Context, run chain, id, resp json.RawMessage, loose bool) (out json.RawMessage, refused bool) {
	out, loose, err := run(ctx, resp, loose)
	if err == nil && !loose {
		// out is valid JSON (resp passed the answer check, and the chain
		// checked whatever a processor changed) and already compact: it
		// is what the caller gets, without a compacted copy.
		return out, false
	}
	if err == nil {
		var buf bytes.Buffer
		buf.Grow(len(out))
		if json.Compact(&buf, out) == nil {
			return buf.Bytes(), false
		}
		err = ErrNotJSON
	}
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		e = jsonrpc.NewCodeError(jsonrpc.CodeInternal, "")
	}
	if rid := responseID(resp); rid != nil {
		id = rid
	}
	return marshalResponse(jsonrpc.NewError(id, e)), true
}

// responseID is the id of a response object, or nil when it has none.
func responseID(resp json.RawMessage) json.RawMessage {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(resp, &env) != nil {
		return nil
	}
	return env.ID
}
