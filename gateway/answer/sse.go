package answer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// eventStream is an upstream server-sent event stream read back event by
// event, each event's data run through the answer chain as it arrives:
// Read returns at most one event at a time, so the proxy flushes each
// event to the caller as soon as it is processed, and the stream is never
// held whole.
//
// It writes the events back in a normal form: lines end in "\n" (the
// upstream may use "\r\n" or "\r" as well, as the SSE format allows), the
// data of an event is one "data: " line of compact JSON, and only the
// fields a client acts on (event, id, retry) and comments pass; a client
// ignores any other field, and a lenient one cannot be led to read one.
// An event whose data is not JSON, or that the answer check or the chain
// refuses, is replaced by a JSON-RPC error event and ends the stream; so
// is any event once the call's halt says stop (Call.Halt).
type eventStream struct {
	ctx   context.Context
	run   chain
	check answerCheck
	id    json.RawMessage
	src   io.ReadCloser
	max   int // bounds one event, which must be held whole to process it
	r     *bufio.Reader
	lines [][]byte // lines read but not yet consumed
	out   []byte   // written back but not yet read
	done  bool     // nothing follows out
	// line, when set, rewrites each kept line (false drops it): on a call
	// scoped to a capability, ids in event and id fields are mapped too.
	line LineFilter
	// tooLarge, when set, records an event over max before it is refused.
	tooLarge func()
	// shape, when set, puts the gateway's own refusals in the caller's shape.
	shape func(error) error
	// halt, when set, is asked before each event is written back: an
	// error ends the stream in the event's place (Call.Halt).
	halt func(context.Context) error
}

// errEventTooLarge stops the reading of a stream event longer than max.
var errEventTooLarge = errors.New("answer: upstream stream event too large")

func newEventStream(ctx context.Context, run chain, check answerCheck, id json.RawMessage, src io.ReadCloser, max int) *eventStream {
	return &eventStream{ctx: ctx, run: run, check: check, id: id, src: src, max: max, r: bufio.NewReaderSize(src, 32<<10)}
}

// Read implements io.Reader.
func (s *eventStream) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.done {
			return 0, io.EOF
		}
		s.out = s.nextEvent()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// Close implements io.Closer, closing the upstream stream.
func (s *eventStream) Close() error { return s.src.Close() }

// nextEvent reads one event from the upstream and returns what the caller
// gets for it (nothing for blank lines). At the end of the upstream
// stream an unterminated event is still processed, so that nothing a
// lenient client would act on passes unprocessed.
func (s *eventStream) nextEvent() []byte {
	var kept [][]byte
	var data [][]byte
	size := 0
	for {
		line, err := s.readLine()
		if err != nil {
			s.done = true
			if !errors.Is(err, io.EOF) {
				return s.refuse(err)
			}
			break
		}
		if size += len(line) + 1; size > s.max {
			return s.refuse(errEventTooLarge)
		}
		if len(line) == 0 {
			break
		}
		if value, ok := field(line, "data"); ok {
			data = append(data, value)
		} else if keep(line) {
			if s.line != nil {
				if line, ok = s.line(line); !ok {
					continue
				}
			}
			kept = append(kept, line)
		}
	}
	return s.writeEvent(kept, data)
}

// writeEvent writes one event back: its kept lines, its processed data.
func (s *eventStream) writeEvent(kept, data [][]byte) []byte {
	if len(kept) == 0 && data == nil {
		return nil
	}
	if err := s.halted(); err != nil {
		return s.refuse(err)
	}
	var b bytes.Buffer
	for _, l := range kept {
		b.Write(l)
		b.WriteByte('\n')
	}
	if data != nil {
		joined := bytes.Join(data, []byte("\n"))
		if len(joined) == 0 {
			// An event with empty data (a server's priming event, which
			// carries only an id to resume from) holds nothing to check.
			b.WriteString("data:\n\n")
			return b.Bytes()
		}
		loose, err := s.check(s.ctx, joined)
		if err != nil {
			return s.refuse(err)
		}
		out, refused := processOne(s.ctx, s.run, s.id, joined, loose)
		s.done = s.done || refused
		b.WriteString("data: ")
		b.Write(out)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// refuse ends the stream with a JSON-RPC error event for err; the caller
// then sees the stream end cleanly.
func (s *eventStream) refuse(err error) []byte {
	s.done = true
	s.lines = nil
	var e *jsonrpc.Error
	switch {
	case errors.Is(err, errEventTooLarge):
		if s.tooLarge != nil {
			s.tooLarge()
		}
		e = s.shaped(AnswerTooLarge(s.max))
	case !errors.As(err, &e):
		e = UpstreamUnavailable(nil).Error
	}
	return fmt.Appendf(nil, "data: %s\n\n", marshalResponse(jsonrpc.NewError(s.id, e)))
}

// halted is the halt's error in the caller's shape, nil when the stream
// may go on.
func (s *eventStream) halted() error {
	if s.halt == nil {
		return nil
	}
	err := s.halt(s.ctx)
	if err == nil || s.shape == nil {
		return err
	}
	return s.shape(err)
}

// shaped is e in the caller's shape.
func (s *eventStream) shaped(e *jsonrpc.Error) *jsonrpc.Error {
	if s.shape == nil {
		return e
	}
	var out *jsonrpc.Error
	if !errors.As(s.shape(e), &out) {
		return e
	}
	return out
}

// readLine returns the next line without its end, which is "\r\n", "\n"
// or "\r". A line longer than the bound is an error.
func (s *eventStream) readLine() ([]byte, error) {
	for len(s.lines) == 0 {
		raw, err := s.readRaw()
		if len(raw) == 0 && err != nil {
			return nil, err
		}
		raw = bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		s.lines = bytes.Split(raw, []byte("\r"))
		if err != nil {
			// The upstream ended mid-line: the line still counts.
			break
		}
	}
	if len(s.lines) == 0 {
		return nil, io.EOF
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	return l, nil
}

// readRaw reads up to and including the next "\n", or to the end.
func (s *eventStream) readRaw() ([]byte, error) {
	var acc []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(acc)+len(chunk) > s.max {
			return nil, errEventTooLarge
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if acc == nil {
				return bytes.Clone(chunk), err
			}
			return append(acc, chunk...), err
		}
		acc = append(acc, chunk...)
	}
}

// field returns the value of line when it is the named field: after the
// name, a colon and at most one space are dropped; a line that is the name
// alone has an empty value. Field names are matched exactly, as clients do.
func field(line []byte, name string) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(name))
	if !ok {
		return nil, false
	}
	if len(rest) == 0 {
		return rest, true
	}
	if rest[0] != ':' {
		return nil, false
	}
	return bytes.TrimPrefix(rest[1:], []byte(" ")), true
}

// keep reports whether a line other than data passes: a comment, or a
// field a client acts on.
func keep(line []byte) bool {
	if line[0] == ':' {
		return true
	}
	for _, name := range []string{"event", "id", "retry"} {
		if _, ok := field(line, name); ok {
			return true
		}
	}
	return false
}
