package lab

import (
	"slices"
	"sync"
	"time"
)

// DefaultRecorderLimit is how many messages a Recorder retains when its
// Limit is zero. Count keeps counting past it.
const DefaultRecorderLimit = 1024

// RecordedMessage is one line POSTed to /send, as the host received it.
type RecordedMessage struct {
	// Time is when the host received it, from the host's clock.
	Time time.Time
	// Session is the X-Session-Id header.
	Session string
	// Type is the message type when the line decoded, else "".
	Type string
	// Line is the line as received (at most the host's line limit).
	Line []byte
}

// Recorder keeps the messages a host received. It is safe for concurrent
// use, and its zero value is ready to use.
type Recorder struct {
	// Limit is how many messages to retain; zero means
	// DefaultRecorderLimit.
	Limit int

	mu    sync.Mutex
	msgs  []RecordedMessage
	count int
}

// Record appends a copy of m.
func (r *Recorder) Record(m RecordedMessage) {
	m.Line = slices.Clone(m.Line)
	limit := r.Limit
	if limit <= 0 {
		limit = DefaultRecorderLimit
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	if len(r.msgs) >= limit {
		r.msgs = slices.Delete(r.msgs, 0, len(r.msgs)-limit+1)
	}
	r.msgs = append(r.msgs, m)
}

// Count returns how many messages were recorded since the last Reset.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// Types returns the types of the retained messages, oldest first ("" for
// a line that did not decode).
func (r *Recorder) Types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.msgs))
	for i, m := range r.msgs {
		out[i] = m.Type
	}
	return out
}

// CountType returns how many retained messages had type typ.
func (r *Recorder) CountType(typ string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if m.Type == typ {
			n++
		}
	}
	return n
}

// Messages returns copies of the retained messages, oldest first.
func (r *Recorder) Messages() []RecordedMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]RecordedMessage, len(r.msgs))
	for i, m := range r.msgs {
		m.Line = slices.Clone(m.Line)
		out[i] = m
	}
	return out
}
