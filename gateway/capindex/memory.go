package capindex

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/captoken"
)

// Memory is the in-memory index of the embedded default: one replica.
//
// It keeps each record compactly: the token in binary, keyed by the
// capability id as it appears in the token's own bytes, and one shared
// copy of what live records have in common: the principal, holder,
// agent, grant and parent together, the token header, and the list of
// display names (interned, and forgotten with the last record that uses
// them).
type Memory struct {
	now func() time.Time

	mu      sync.RWMutex
	records map[string]*entry
	puts    int
	parties interner[parties, struct{}]
	headers interner[string, struct{}]
	names   interner[string, []string] // keyed by nameListKey
}

var _ Index = (*Memory)(nil)

// parties are the fields many records share.
type parties struct{ principal, holder, agent, grant, parent string }

// entry is one record as Memory keeps it. It is immutable once stored.
type entry struct {
	parties *interned[parties, struct{}]
	names   *interned[string, []string]
	token   captoken.Packed
	issued  int64 // Unix milliseconds
	expires int64
}

// NewMemory returns an empty in-memory index using the clock now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{
		now: now, records: map[string]*entry{},
		parties: interner[parties, struct{}]{own: func(p parties) (parties, struct{}) {
			c := strings.Clone
			return parties{c(p.principal), c(p.holder), c(p.agent), c(p.grant), c(p.parent)}, struct{}{}
		}},
		headers: interner[string, struct{}]{own: func(h string) (string, struct{}) { return strings.Clone(h), struct{}{} }},
		names:   interner[string, []string]{own: ownNameList},
	}
}

// nameListKey is a list of display names as one comparable string: each
// name after its length in two big-endian bytes.
func nameListKey(names []string) string {
	var b []byte
	for _, n := range names {
		b = append(binary.BigEndian.AppendUint16(b, uint16(len(n))), n...)
	}
	return string(b)
}

// ownNameList keeps a copy of a nameListKey and the names it lists, cut
// from that copy.
func ownNameList(key string) (string, []string) {
	key = strings.Clone(key)
	var names []string
	for rest := key; len(rest) >= 2; {
		n := int(rest[0])<<8 | int(rest[1])
		names, rest = append(names, rest[2:2+n]), rest[2+n:]
	}
	return key, names
}

// Put stores r. Expired records are pruned every so often on Put, so the
// index's size follows the number of live capabilities.
func (m *Memory) Put(_ context.Context, r Record) error {
	if err := r.check(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.records[r.CapabilityID]; ok {
		m.release(old)
	}
	e := m.keep(r)
	m.records[e.token.Share(r.CapabilityID)] = e
	m.puts++
	if m.puts%1024 == 0 {
		m.pruneLocked()
	}
	return nil
}

// keep builds r's entry, interning what it shares with other records.
func (m *Memory) keep(r Record) *entry {
	tok := r.Token
	if !tok.IsZero() {
		tok = tok.WithHeader(m.headers.add(tok.Header()).key)
	}
	return &entry{
		parties: m.parties.add(parties{r.Principal, r.Holder, r.Agent, r.Grant, r.ParentID}),
		names:   m.names.add(nameListKey(r.DisplayNames)),
		token:   tok, issued: r.IssuedAt.UnixMilli(), expires: r.Expires.UnixMilli(),
	}
}

// release uncounts what e interned.
func (m *Memory) release(e *entry) {
	m.parties.drop(e.parties.key)
	m.names.drop(e.names.key)
	if !e.token.IsZero() {
		m.headers.drop(e.token.Header())
	}
}

// record is the Record e keeps under id.
func (e *entry) record(id string) Record {
	p, names := e.parties.key, e.names.v
	return Record{
		CapabilityID: id, Token: e.token, Principal: p.principal, Holder: p.holder, Agent: p.agent, Grant: p.grant,
		// A copy: the interned list is shared by every record with the
		// same names, and names are matched to handles by position, so a
		// caller's write must never reach another capability's list.
		ParentID: p.parent, DisplayNames: slices.Clone(names),
		IssuedAt: time.UnixMilli(e.issued).UTC(), Expires: time.UnixMilli(e.expires).UTC(),
	}
}

// live reports whether e is unexpired at now.
func (e *entry) live(now time.Time) bool { return now.UnixMilli() < e.expires }

// Get returns the live record for id.
func (m *Memory) Get(_ context.Context, id string) (Record, error) {
	m.mu.RLock()
	e, ok := m.records[id]
	m.mu.RUnlock()
	if !ok || !e.live(m.now()) {
		return Record{}, ErrNotFound
	}
	return e.record(id), nil
}

// ListByPrincipal returns the live records of principal or holder p.
func (m *Memory) ListByPrincipal(ctx context.Context, p string) ([]Record, error) {
	return m.list(Filter{Principal: p}, math.MaxInt)
}

// List returns the live records matching f, the newest f.Max() of them.
// Memory keeps what it was given, so its listings never report
// unreadable records.
func (m *Memory) List(_ context.Context, f Filter) ([]Record, error) {
	return m.list(f, f.Max())
}

func (m *Memory) list(f Filter, max int) ([]Record, error) {
	now := m.now()
	m.mu.RLock()
	var out []Record
	for id, e := range m.records {
		if r := e.record(id); f.Match(r) && e.live(now) {
			out = append(out, r)
		}
	}
	m.mu.RUnlock()
	return sortAndCut(out, max), nil
}

// Len returns the number of records held, live or not yet pruned.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.records)
}

func (m *Memory) pruneLocked() {
	now := m.now()
	for id, e := range m.records {
		if !e.live(now) {
			delete(m.records, id)
			m.release(e)
		}
	}
}

// Close does nothing; it exists to satisfy Index.
func (m *Memory) Close() error { return nil }
