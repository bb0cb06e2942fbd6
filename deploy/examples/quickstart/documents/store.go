package documents

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Document is one resource of the documents agent.
type Document struct {
	// ID is the real resource id, "<collection>/<name>", e.g.
	// "reports/q1-financial". Callers only ever see it through the gateway's
	// resource handles.
	ID string `json:"id"`
	// Collection is the collection the document belongs to, e.g. "reports".
	Collection string `json:"collection"`
	// Title is the display name, e.g. "Q1 Financial Summary".
	Title string `json:"title"`
	// Content is the body; its first line is a one-sentence summary.
	Content string `json:"content"`
	// Attributes are the exact-match filter attributes, e.g. quarter.
	Attributes map[string]string `json:"attributes"`
	// UpdatedAt is when update_document last changed it (zero if never).
	UpdatedAt time.Time `json:"-"`
}

// FirstLine returns the first line of the document's content.
func (d Document) FirstLine() string {
	line, _, _ := strings.Cut(d.Content, "\n")
	return strings.TrimSpace(line)
}

// SeedDocuments returns a fresh copy of the quickstart world's documents
// (see the package doc of deploy/examples/quickstart), sorted by id.
func SeedDocuments() []Document {
	return []Document{
		{
			ID: "hr/salaries-2025", Collection: "hr", Title: "Salaries 2025",
			Content: "Salary bands for 2025 rise by 3.5% on average, with engineering bands adjusted most.\n" +
				"Band E3: 95,000-120,000 EUR.\nBand E4: 120,000-150,000 EUR.\n" +
				"Band M1: 110,000-140,000 EUR.\nConfidential: HR and the executive team only.",
			Attributes: map[string]string{},
		},
		{
			ID: "reports/q1-financial", Collection: "reports", Title: "Q1 Financial Summary",
			Content: "Q1 2025 revenue grew 12% year over year to 4.2M USD while operating costs stayed flat.\n" +
				"Gross margin: 61%, up two points on lower hosting costs.\n" +
				"Operating expenses: 2.1M USD, in line with plan.\nCash position at quarter end: 9.8M USD.",
			Attributes: map[string]string{"quarter": "2025-Q1"},
		},
		{
			ID: "reports/q1-sales", Collection: "reports", Title: "Q1 Sales Report",
			Content: "Q1 2025 sales closed 148 new accounts, 9% above target, led by the EMEA team.\n" +
				"EMEA: 61 accounts. Americas: 54 accounts. APAC: 33 accounts.\n" +
				"Average deal size rose to 28,400 USD.\nPipeline for Q2 stands at 6.3M USD.",
			Attributes: map[string]string{"quarter": "2025-Q1"},
		},
		{
			ID: "reports/q2-financial", Collection: "reports", Title: "Q2 Financial Summary",
			Content: "Q2 2025 revenue reached 4.6M USD, up 10% on Q1, and the company turned cash-flow positive.\n" +
				"Gross margin: 62%.\nOperating expenses: 2.2M USD after two senior hires.\n" +
				"Cash position at quarter end: 10.4M USD.",
			Attributes: map[string]string{"quarter": "2025-Q2"},
		},
	}
}

// store holds an agent's documents in memory; safe for concurrent use.
type store struct {
	mu   sync.RWMutex
	docs map[string]Document
}

func newStore(docs []Document) *store {
	s := &store{docs: make(map[string]Document, len(docs))}
	for _, d := range docs {
		d.Attributes = maps.Clone(d.Attributes)
		s.docs[d.ID] = d
	}
	return s
}

func (s *store) get(id string) (Document, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.docs[id]
	if !ok {
		return Document{}, fmt.Errorf("%w: %s", ErrUnknownResource, quote(id))
	}
	d.Attributes = maps.Clone(d.Attributes)
	return d, nil
}

// within returns the documents among ids that exist, sorted by id. Ids
// that name no document are skipped: the list is a filter, not a lookup.
func (s *store) within(ids []string) []Document {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Document
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if d, ok := s.docs[id]; ok {
			d.Attributes = maps.Clone(d.Attributes)
			out = append(out, d)
		}
	}
	return out
}

// all returns every document, sorted by id.
func (s *store) all() []Document {
	s.mu.RLock()
	ids := slices.Sorted(maps.Keys(s.docs))
	s.mu.RUnlock()
	return s.within(ids)
}

func (s *store) update(id, content string, now time.Time) (Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[id]
	if !ok {
		return Document{}, fmt.Errorf("%w: %s", ErrUnknownResource, quote(id))
	}
	d.Content = content
	d.UpdatedAt = now
	s.docs[id] = d
	d.Attributes = maps.Clone(d.Attributes)
	return d, nil
}

func (s *store) delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.docs[id]; !ok {
		return fmt.Errorf("%w: %s", ErrUnknownResource, quote(id))
	}
	delete(s.docs, id)
	return nil
}
