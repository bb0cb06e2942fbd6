package audit

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Checkpoint names and defaults.
const (
	// CheckpointEvent is the event name of a checkpoint; the name is
	// reserved for checkpoints.
	CheckpointEvent = "audit.checkpoint"
	// FieldJWS is the checkpoint member holding the signature.
	FieldJWS = "jws"
	// CheckpointType is the "typ" header of a checkpoint's JWS.
	CheckpointType = "audit-checkpoint+jws"
	// DefaultCheckpointEvery is the default number of events between
	// checkpoints.
	DefaultCheckpointEvery = 1000
	// DefaultCheckpointInterval is the default longest time between an
	// event and the checkpoint that covers it.
	DefaultCheckpointInterval = time.Minute
)

// Signer signs a checkpoint: payload as a compact JWS whose header carries
// alg, kid and typ. *captoken.KeySet is one (its active signing key).
type Signer interface {
	SignJWS(typ string, payload []byte) (string, error)
}

// Checkpoints configures signed checkpoints. A checkpoint is an event of
// the chain like any other (so the hash chain is unchanged), named
// CheckpointEvent, whose FieldJWS member is a JWS, of type CheckpointType,
// over the chain's head before it: {"chain","hash","seq"}, the hash and
// seq of the event just before the checkpoint. A checkpoint is written
// after every Every events, and when Interval passes with events not yet
// covered, and by Close. Whoever rewrites the chain without the signing
// key cannot produce the checkpoints that VerifyOptions.Keys requires.
type Checkpoints struct {
	// Signer signs the checkpoints; required.
	Signer Signer
	// Every is the number of events between checkpoints; 0 means
	// DefaultCheckpointEvery.
	Every int
	// Interval is the period of the timer; 0 means
	// DefaultCheckpointInterval. Ignored when Tick is set.
	Interval time.Duration
	// Tick, when set, replaces the timer: each receive writes a checkpoint
	// if events are not yet covered. Tests drive the timer with it.
	Tick <-chan time.Time
}

// checkpointPayload is what a checkpoint signs: the head before it.
type checkpointPayload struct {
	Chain string `json:"chain"`
	Hash  string `json:"hash"`
	Seq   uint64 `json:"seq"`
}

// checkpointer is the chain's checkpoint state.
type checkpointer struct {
	signer Signer
	every  int
	since  int // events since the last checkpoint; guarded by chain.mu

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// startCheckpoints sets up checkpoints and starts the timer goroutine.
func (c *chain) startCheckpoints(o *Checkpoints) {
	if o == nil || o.Signer == nil {
		return
	}
	cp := &checkpointer{signer: o.Signer, every: o.Every, stop: make(chan struct{}), done: make(chan struct{})}
	if cp.every <= 0 {
		cp.every = DefaultCheckpointEvery
	}
	tick, stopTick := o.Tick, func() {}
	if tick == nil {
		d := o.Interval
		if d <= 0 {
			d = DefaultCheckpointInterval
		}
		t := time.NewTicker(d)
		tick, stopTick = t.C, t.Stop
	}
	c.cp = cp
	go c.runCheckpoints(cp, tick, stopTick)
}

// runCheckpoints writes a checkpoint on every tick until stopped.
func (c *chain) runCheckpoints(cp *checkpointer, tick <-chan time.Time, stopTick func()) {
	defer close(cp.done)
	defer stopTick()
	for {
		select {
		case <-cp.stop:
			return
		case <-tick:
			c.mu.Lock()
			if c.cp != nil {
				c.checkpointLocked()
			}
			c.mu.Unlock()
		}
	}
}

// checkpointLocked signs the head and appends the checkpoint, if events
// were written since the last one. A signing failure is logged and
// retried at the next event or tick. The caller holds c.mu.
func (c *chain) checkpointLocked() {
	if c.cp.since == 0 {
		return
	}
	payload, err := json.Marshal(checkpointPayload{Chain: c.id, Hash: c.prev, Seq: c.seq})
	if err == nil {
		var jws string
		if jws, err = c.cp.signer.SignJWS(CheckpointType, payload); err == nil {
			c.cp.since = 0
			ms := []member{mustMember(FieldEvent, CheckpointEvent),
				mustMember(FieldChain, c.id), mustMember(FieldJWS, jws)}
			sortMembers(ms)
			_ = c.appendLocked(ms, time.Time{})
			return
		}
	}
	c.log.Error("audit checkpoint not signed", "chain", c.id, "seq", c.seq, "err", err)
}

// Close stops the checkpoint timer and writes a last checkpoint covering
// every event so far. Events logged after Close are still written and
// chained but no longer checkpointed. Without checkpoints it does nothing.
func (h *Handler) Close() error {
	h.c.mu.Lock()
	cp := h.c.cp
	h.c.mu.Unlock()
	if cp == nil {
		return nil
	}
	cp.stopOnce.Do(func() { close(cp.stop) })
	<-cp.done
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if h.c.cp != nil {
		h.c.checkpointLocked()
		h.c.cp = nil
	}
	return nil
}

// checkpointJWS returns a checkpoint's signature: a checkpoint carries
// exactly the chain fields and a string FieldJWS.
func checkpointJWS(obj map[string]any) (string, error) {
	jws, ok := obj[FieldJWS].(string)
	if !ok || len(obj) != 7 {
		return "", fmt.Errorf("a checkpoint has exactly the chain fields and a string %s", FieldJWS)
	}
	return jws, nil
}
