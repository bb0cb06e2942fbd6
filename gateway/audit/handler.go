package audit

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Options configures a Handler.
type Options struct {
	// Chain names this writer's chain and goes into every event. Use the
	// replica id; each replica must have its own (two live writers sharing
	// a chain id break each other's chain in a shared stream). Empty means
	// a random id, "chain-" and 16 hex digits.
	Chain string
	// Now is the clock for the time field. Nil means the record's own time
	// (set by slog.Logger), or time.Now when that is zero.
	Now func() time.Time
	// Stream, when set, receives every event after it is written, in chain
	// order. It must not block (RedisStream does not).
	Stream StreamSink
	// Logger receives the handler's own diagnostics (a failed write). It
	// must not be a logger backed by this handler. Nil discards them.
	Logger *slog.Logger
	// Checkpoints, when set, makes the handler sign the chain head at
	// intervals (see Checkpoints); call Close when done with the handler.
	Checkpoints *Checkpoints
}

// Head is the end of a chain: its id, the seq of its last event and that
// event's hash. Writing it somewhere the audit file's writer cannot
// change anchors the chain against truncation and rewriting.
type Head struct {
	Chain string
	Seq   uint64
	Hash  string
}

// Handler is a slog.Handler writing each record as one hash-chained JSON
// line. It is safe for concurrent use; the chain order is the write
// order. Handlers derived with WithAttrs and WithGroup share the chain.
type Handler struct {
	c     *chain
	steps []step
}

var _ slog.Handler = (*Handler)(nil)

// step is one WithGroup (group != "") or WithAttrs call, in order.
type step struct {
	group string
	attrs []slog.Attr
}

// chain is the state shared by a handler and its derivatives.
type chain struct {
	id     string
	w      io.Writer
	now    func() time.Time
	stream StreamSink
	log    *slog.Logger

	builders builderPool

	mu    sync.Mutex
	seq   uint64
	prev  string
	cp    *checkpointer // nil without checkpoints; guarded by mu
	line  []byte        // the line being written; guarded by mu
	fixed []byte        // the reserved members being written; guarded by mu
}

// NewHandler returns a handler writing to w. Each Handle call makes
// exactly one Write of one newline-terminated line, so w may be a file
// opened with O_APPEND.
func NewHandler(w io.Writer, opts Options) *Handler {
	id := opts.Chain
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = "chain-" + hex.EncodeToString(b[:])
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &chain{id: clean(id), w: w, now: opts.Now, stream: opts.Stream, log: log}
	c.startCheckpoints(opts.Checkpoints)
	return &Handler{c: c}
}

// Enabled reports true for every level: an audit trail does not sample.
func (h *Handler) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs returns a handler adding attrs to every event, inside the
// groups opened so far.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.with(step{attrs: append([]slog.Attr(nil), attrs...)})
}

// WithGroup returns a handler nesting later attributes under name.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(step{group: name})
}

func (h *Handler) with(s step) *Handler {
	steps := make([]step, len(h.steps), len(h.steps)+1)
	copy(steps, h.steps)
	return &Handler{c: h.c, steps: append(steps, s)}
}

// Head returns the chain's current end; Seq is 0 before the first event.
func (h *Handler) Head() Head {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	return Head{Chain: h.c.id, Seq: h.c.seq, Hash: h.c.prev}
}

// Handle appends one event to the chain and writes it. The event's
// fields are built and encoded before the chain lock is taken; only seq,
// prev, time and the hash are assigned under it. A write error is
// returned wrapping ErrWrite, and logged; the event keeps its seq.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	b := h.c.builders.get()
	defer h.c.builders.put(b)
	attrs, ok := b.encode(h.steps, &r, nil)
	if !ok {
		var err error
		if attrs, err = encodeMembers(h.attrs(r)); err != nil {
			return fmt.Errorf("audit: encoding event %q: %w", r.Message, err)
		}
	}
	return h.finish(b, attrs, r.Message, r.Time)
}

// Event appends one event named msg at t with attrs, exactly as Handle
// appends a record of msg at t with those attributes (the same line, the
// same hash), without building the record: slog.Record keeps five
// attributes inline and allocates for the rest, and the invocation
// event, on every call's path, has fifteen.
func (h *Handler) Event(ctx context.Context, t time.Time, msg string, attrs ...slog.Attr) error {
	b := h.c.builders.get()
	defer h.c.builders.put(b)
	ms, ok := b.encode(h.steps, nil, attrs)
	if !ok {
		r := slog.NewRecord(t, slog.LevelInfo, msg, 0)
		r.AddAttrs(attrs...)
		return h.Handle(ctx, r)
	}
	return h.finish(b, ms, msg, t)
}

// finish adds the event's name and chain to its encoded attributes and
// appends it; attributes too large are replaced by their size.
func (h *Handler) finish(b *builder, attrs []member, msg string, t time.Time) error {
	if size := membersSize(attrs); size > maxAttrBytes {
		h.c.log.Error("audit event attributes too large; recorded without them",
			"event", msg, "bytes", size)
		attrs = []member{mustMember(FieldOmitted, json.Number(strconv.Itoa(size)))}
	}
	attrs = insertMember(attrs, b.member(FieldEvent, clean(msg)))
	attrs = insertMember(attrs, b.member(FieldChain, h.c.id))
	return h.c.append(attrs, t)
}

// attrs builds the attribute tree of one record, with the reserved
// top-level names already taken so that attributes cannot shadow them.
func (h *Handler) attrs(r slog.Record) map[string]any {
	root := map[string]any{}
	for _, k := range []string{FieldTime, FieldEvent, FieldChain, FieldSeq, FieldPrev, FieldHash} {
		root[k] = nil
	}
	cur := root
	var open []string
	enter := func() {
		for _, g := range open {
			sub := map[string]any{}
			put(cur, g, sub)
			cur = sub
		}
		open = nil
	}
	for _, s := range h.steps {
		if s.group != "" {
			open = append(open, s.group)
			continue
		}
		if hasContent(s.attrs) {
			enter()
			for _, a := range s.attrs {
				addAttr(cur, a)
			}
		}
	}
	if r.NumAttrs() > 0 {
		enter()
		r.Attrs(func(a slog.Attr) bool { addAttr(cur, a); return true })
	}
	for _, k := range []string{FieldTime, FieldEvent, FieldChain, FieldSeq, FieldPrev, FieldHash} {
		delete(root, k)
	}
	return root
}

// append numbers, links, hashes and writes one event, then a checkpoint
// when one is due.
func (c *chain) append(ms []member, recTime time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.appendLocked(ms, recTime)
	if c.cp != nil {
		c.cp.since++
		if c.cp.since >= c.cp.every {
			c.checkpointLocked()
		}
	}
	return err
}

// appendLocked is append without the checkpoint; the caller holds c.mu
// and ms is sorted by key (sortMembers).
// The line is built in c.line, reused from event to event; the stream
// gets its own copy.
func (c *chain) appendLocked(ms []member, recTime time.Time) error {
	t := recTime
	if c.now != nil {
		t = c.now()
	} else if t.IsZero() {
		t = time.Now()
	}
	seq := c.seq + 1
	f := c.fixed[:0]
	f = appendTime(append(f, `"time":`...), t.UTC())
	timeEnd := len(f)
	f = strconv.AppendUint(append(f, `"seq":`...), seq, 10)
	seqEnd := len(f)
	f = appendString(append(f, `"prev":`...), c.prev)
	prevEnd := len(f)
	ms = insertMember(ms, member{FieldTime, f[:timeEnd:timeEnd]})
	ms = insertMember(ms, member{FieldSeq, f[timeEnd:seqEnd:seqEnd]})
	ms = insertMember(ms, member{FieldPrev, f[seqEnd:prevEnd:prevEnd]})
	c.line = appendJoined(c.line[:0], ms, FieldHash)
	sum := sha256.Sum256(c.line)
	var hexSum [2 * sha256.Size]byte
	hex.Encode(hexSum[:], sum[:])
	hash := string(hexSum[:])
	f = appendString(append(f, `"hash":`...), hash)
	ms = insertMember(ms, member{FieldHash, f[prevEnd:]})
	c.fixed = f
	c.line = append(appendJoined(c.line[:0], ms, ""), '\n')
	line := c.line
	c.seq, c.prev = seq, hash
	var werr error
	if _, err := c.w.Write(line); err != nil {
		werr = fmt.Errorf("%w: chain %s seq %d: %w", ErrWrite, c.id, seq, err)
		c.log.Error("audit event not written", "chain", c.id, "seq", seq, "err", err)
	}
	if c.stream != nil {
		c.stream.Enqueue(Entry{Chain: c.id, Seq: seq, Line: bytes.Clone(line[:len(line)-1])})
	}
	if cap(c.line) > maxPooledBuffer {
		c.line = nil
	}
	return werr
}

// membersSize is the encoded size of ms.
func membersSize(ms []member) int {
	n := 0
	for _, m := range ms {
		n += len(m.enc) + 1
	}
	return n
}

// mustMember encodes a reserved field, whose value is a string or a
// json.Number and always encodes.
func mustMember(key string, v any) member {
	m, err := encodeMember(key, v)
	if err != nil {
		panic("audit: encoding reserved field " + key + ": " + err.Error())
	}
	return m
}
