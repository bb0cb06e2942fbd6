package jsonrpc

import "sync"

// Decoder is Decode under fixed limits for a hot path: it keeps the
// strict checker's scratch memory between bodies (about a kilobyte that
// Decode allocates and clears for every body), so that decoding a typical
// body allocates only what it returns. It decodes exactly as Decode does
// and is safe for concurrent use.
type Decoder struct {
	lim     Limits
	scratch sync.Pool // *checkScratch
}

// NewDecoder returns a Decoder for lim, which must be valid
// (ErrInvalidLimits).
func NewDecoder(lim Limits) (*Decoder, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	return &Decoder{lim: lim}, nil
}

// Decode decodes body as Decode does under d's limits. Nothing it
// returns refers to the scratch memory, which only holds the checker's
// bookkeeping while it runs.
func (d *Decoder) Decode(body []byte) (reqs []Request, batch bool, err error) {
	s, _ := d.scratch.Get().(*checkScratch)
	if s == nil {
		s = new(checkScratch)
	}
	reqs, batch, err = decode(s, body, d.lim)
	d.scratch.Put(s)
	return reqs, batch, err
}
