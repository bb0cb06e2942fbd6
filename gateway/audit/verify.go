package audit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// VerifyOptions relaxes verification for sources that legitimately lose
// the start of a chain or repeat events. The zero value is strict, right
// for a complete audit file.
type VerifyOptions struct {
	// AllowTrimmedStart accepts a chain whose first event has a seq above
	// 1; that event's prev is then not checked. A stream trimmed by
	// MAXLEN, or a file that continues a rotated one, starts this way.
	AllowTrimmedStart bool
	// AllowDuplicates skips an event identical (same chain, seq and hash)
	// to one already verified, and a gap entry identical to one already
	// seen, as retried stream deliveries produce. They are counted in
	// Report.Duplicates.
	AllowDuplicates bool
	// Keys, when set, checks checkpoints (see Checkpoints): each must be
	// signed by one of these public keys, with typ CheckpointType, over
	// exactly the event before it, and no chain may run more than
	// CheckpointEvery events without one. Pass the gateway's JWKS, kept
	// with every key the audit trail may have been signed with.
	Keys *jose.JSONWebKeySet
	// CheckpointEvery is the gateway's audit.checkpoint_every; 0 means
	// DefaultCheckpointEvery. Only used with Keys.
	CheckpointEvery int
}

// Report is what verification saw, up to the first broken event when
// there is one.
type Report struct {
	// Events counts verified events, duplicates excluded.
	Events int
	// Duplicates counts skipped duplicates (AllowDuplicates).
	Duplicates int
	// Checkpoints counts checkpoints whose signature verified (Keys).
	Checkpoints int
	// Chains has one entry per chain, sorted by chain id.
	Chains []ChainReport
}

// Missing returns how many events the declared gaps of every chain leave
// out.
func (r Report) Missing() uint64 {
	var n uint64
	for _, c := range r.Chains {
		for _, g := range c.Gaps {
			n += g.Missing()
		}
	}
	return n
}

// ChainReport describes one chain.
type ChainReport struct {
	// Chain is the chain id.
	Chain string
	// First and Last are the seqs of the first and last verified events.
	First, Last uint64
	// Head is the hash of the last verified event: compare it with an
	// anchor kept elsewhere (Handler.Head) to detect truncation.
	Head string
	// Events counts the chain's verified events.
	Events int
	// Segments is 1 plus the number of times the chain restarted at seq 1
	// (a writer restarted with the same chain id).
	Segments int
	// Trimmed reports that the chain's first event was not seq 1
	// (AllowTrimmedStart), or began after a declared gap.
	Trimmed bool
	// Gaps are the declared gaps, in order.
	Gaps []Gap
	// Checkpoints counts the chain's verified checkpoints (Keys).
	Checkpoints int
	// Signed is the seq of the last event a verified checkpoint covers;
	// 0 when none does (Keys).
	Signed uint64
	// Unsigned counts events no verified checkpoint covers (Keys): those
	// after the last checkpoint, and the tails of earlier segments (a
	// writer that stopped without Close). Their loss or rewriting cannot
	// be detected from the file alone.
	Unsigned int
}

// Gap is a declared loss in a stream: the events after seq After and
// before seq Next never reached it.
type Gap struct {
	After, Next uint64
}

// Missing returns how many events the gap leaves out.
func (g Gap) Missing() uint64 { return g.Next - g.After - 1 }

// Verify checks an audit file, strictly: every line is a well-formed
// event, every hash matches its event's canonical encoding, every chain
// starts at seq 1 with an empty prev, and within a chain seqs are
// contiguous and each prev is the hash of the event before. It stops at
// the first broken line and returns a *LineError wrapping ErrTampered or
// ErrMalformed; any other error is a read failure. The Report covers the
// lines before the break.
//
// Verify cannot see events cut from the end of a chain, nor a chain
// rewritten from some point on with recomputed hashes: compare each
// chain's Head with an anchor kept elsewhere, such as the Redis stream.
func Verify(r io.Reader) (Report, error) { return VerifyWith(r, VerifyOptions{}) }

// VerifyWith is Verify with relaxed options.
func VerifyWith(r io.Reader, opts VerifyOptions) (Report, error) {
	v := NewVerifier(opts)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes+2)
	for sc.Scan() {
		if err := v.Line(sc.Bytes()); err != nil {
			return v.Report(), err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			v.pos++
			return v.Report(), &LineError{Line: v.pos,
				Err: fmt.Errorf("%w: line longer than %d bytes", ErrMalformed, MaxLineBytes)}
		}
		return v.Report(), fmt.Errorf("audit: reading events: %w", err)
	}
	return v.Report(), nil
}

// Verifier checks events one at a time, for sources other than a reader
// of lines. It is not safe for concurrent use.
type Verifier struct {
	opts        VerifyOptions
	pos         int
	events      int
	dups        int
	checkpoints int
	chains      map[string]*chainCheck
}

// chainCheck is the verifier's state for one chain.
type chainCheck struct {
	rep     ChainReport
	hash    string            // hash of the last event
	pending *Gap              // a declared gap awaiting its next event
	seen    map[uint64]string // seq → hash, with AllowDuplicates
	gaps    map[Gap]bool      // with AllowDuplicates
	run     int               // events since the last checkpoint, with Keys
}

// NewVerifier returns a verifier with no chains seen yet.
func NewVerifier(opts VerifyOptions) *Verifier {
	return &Verifier{opts: opts, chains: map[string]*chainCheck{}}
}

// Report returns what the verifier has seen so far.
func (v *Verifier) Report() Report {
	r := Report{Events: v.events, Duplicates: v.dups, Checkpoints: v.checkpoints,
		Chains: make([]ChainReport, 0, len(v.chains))}
	for _, c := range v.chains {
		cr := c.rep
		cr.Gaps = slices.Clone(c.rep.Gaps)
		r.Chains = append(r.Chains, cr)
	}
	slices.SortFunc(r.Chains, func(a, b ChainReport) int { return strings.Compare(a.Chain, b.Chain) })
	return r
}

// Line verifies the next event line (without its newline). It returns a
// *LineError wrapping ErrTampered or ErrMalformed.
func (v *Verifier) Line(line []byte) error {
	v.pos++
	ev, err := parseEvent(line)
	if err != nil {
		return &LineError{Line: v.pos, Chain: ev.chain, Seq: ev.seq, Err: err}
	}
	fail := func(format string, args ...any) error {
		return &LineError{Line: v.pos, Chain: ev.chain, Seq: ev.seq,
			Err: fmt.Errorf("%w: "+format, append([]any{ErrTampered}, args...)...)}
	}
	if ev.hash != ev.computed {
		return fail("hash does not match the event's content")
	}
	c := v.chains[ev.chain]
	if c != nil && c.seen != nil && c.seen[ev.seq] == ev.hash {
		v.dups++
		return nil
	}
	restart := c == nil || c.pending != nil || ev.seq == 1
	switch {
	case c == nil:
		if ev.seq != 1 && !v.opts.AllowTrimmedStart {
			return fail("chain starts at seq %d: the events before it are missing", ev.seq)
		}
		c = v.newChain(ev.chain)
		c.rep.First, c.rep.Trimmed = ev.seq, ev.seq != 1
	case c.pending != nil:
		if ev.seq != c.pending.Next {
			return fail("seq %d follows a gap declared to end before seq %d", ev.seq, c.pending.Next)
		}
	case ev.seq == 1:
		c.rep.Segments++ // the writer restarted with the same chain id
	case ev.seq == c.rep.Last+1 && ev.prev != c.hash:
		return fail("prev does not link to seq %d", c.rep.Last)
	case ev.seq <= c.rep.Last:
		return fail("seq %d repeats or is out of order after seq %d", ev.seq, c.rep.Last)
	case ev.seq > c.rep.Last+1:
		return fail("seq jumps from %d to %d: events are missing", c.rep.Last, ev.seq)
	}
	if v.opts.Keys != nil {
		if err := v.checkpoint(c, ev, restart); err != nil {
			return &LineError{Line: v.pos, Chain: ev.chain, Seq: ev.seq, Err: err}
		}
	}
	c.accept(ev)
	v.events++
	return nil
}

// newChain registers a chain.
func (v *Verifier) newChain(id string) *chainCheck {
	c := &chainCheck{rep: ChainReport{Chain: id, Segments: 1}}
	if v.opts.AllowDuplicates {
		c.seen, c.gaps = map[uint64]string{}, map[Gap]bool{}
	}
	v.chains[id] = c
	return c
}

// accept makes ev the chain's head.
func (c *chainCheck) accept(ev event) {
	c.pending = nil
	c.rep.Last, c.rep.Head, c.hash = ev.seq, ev.hash, ev.hash
	c.rep.Events++
	if c.seen != nil {
		c.seen[ev.seq] = ev.hash
	}
}

// gap records a declared gap for chain: the next event of that chain
// must have seq next, and its prev is not checked.
func (v *Verifier) gap(chain string, g Gap) error {
	v.pos++
	fail := func(format string, args ...any) error {
		return &LineError{Line: v.pos, Chain: chain, Seq: g.Next,
			Err: fmt.Errorf("%w: "+format, append([]any{ErrTampered}, args...)...)}
	}
	c := v.chains[chain]
	if c != nil && c.gaps != nil && c.gaps[g] {
		v.dups++
		return nil
	}
	switch {
	case c == nil:
		if g.After != 0 && !v.opts.AllowTrimmedStart {
			return fail("chain starts with a gap after seq %d", g.After)
		}
		c = v.newChain(chain)
		c.rep.First, c.rep.Last, c.rep.Trimmed = g.Next, g.After, true
	case c.pending != nil:
		return fail("two gaps in a row")
	case g.After == 0:
		c.rep.Segments++ // a restarted writer whose first events were dropped
	case g.After != c.rep.Last:
		return fail("gap declared after seq %d but the chain is at seq %d", g.After, c.rep.Last)
	}
	c.pending = &g
	c.rep.Gaps = append(c.rep.Gaps, g)
	if c.gaps != nil {
		c.gaps[g] = true
	}
	return nil
}
