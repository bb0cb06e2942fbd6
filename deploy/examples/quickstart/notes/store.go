package notes

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Bounds of the store and of one message.
const (
	// MaxIDBytes bounds a note id.
	MaxIDBytes = 128
	// MaxNoteBytes bounds a note's text; an append that would pass it is
	// refused.
	MaxNoteBytes = 64 << 10
	// MaxAppendBytes bounds the text one message appends.
	MaxAppendBytes = 4 << 10
	// MaxReadNotes bounds how many notes one message reads.
	MaxReadNotes = 16
)

var (
	// ErrNoNote means no note has the id asked for.
	ErrNoNote = errors.New("notes: no such note")
	// ErrNoteFull means an append would make a note longer than
	// MaxNoteBytes.
	ErrNoteFull = errors.New("notes: the note is full")
	// ErrInvalidID means a note id is malformed (see ValidID).
	ErrInvalidID = errors.New("notes: invalid note id")
	// ErrInvalidOptions means New was given unusable options.
	ErrInvalidOptions = errors.New("notes: invalid options")
)

// Note is one stored note.
type Note struct {
	// ID is its storage id, e.g. "notes/alice-groceries".
	ID string
	// Title is its human title, e.g. "Alice's groceries".
	Title string
	// Text is its content, one item per line.
	Text string
}

// SeedNotes returns the notes a new agent starts with when Options.Notes
// is nil.
func SeedNotes() []Note {
	return []Note{
		{ID: "notes/alice-groceries", Title: "Alice's groceries", Text: "milk\neggs\nbread"},
		{ID: "notes/bob-ideas", Title: "Bob's ideas", Text: "a bike shed with a green roof\nweekly demo on Fridays"},
		{ID: "notes/team-standup", Title: "Team stand-up", Text: "ship the notes agent\nreview the gateway config"},
	}
}

// ValidID reports whether id can name a note: 1 to MaxIDBytes bytes of
// lower-case letters, digits, '.', '_', '-' and '/', starting with a
// letter or a digit, holding a '/', with no empty segment and no "..".
func ValidID(id string) error {
	if id == "" || len(id) > MaxIDBytes {
		return fmt.Errorf("%w: must be 1 to %d bytes", ErrInvalidID, MaxIDBytes)
	}
	for _, c := range []byte(id) {
		if !isIDByte(c) {
			return fmt.Errorf("%w: only a-z, 0-9, '.', '_', '-' and '/' are allowed", ErrInvalidID)
		}
	}
	switch {
	case !isAlnum(id[0]):
		return fmt.Errorf("%w: must start with a letter or a digit", ErrInvalidID)
	case !strings.Contains(id, "/"), strings.Contains(id, "//"), strings.HasSuffix(id, "/"):
		return fmt.Errorf("%w: must be a path like notes/name", ErrInvalidID)
	case strings.Contains(id, ".."):
		return fmt.Errorf("%w: must not hold \"..\"", ErrInvalidID)
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isIDByte(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' || c == '/' }

// store holds the notes in memory, keyed by id. Its set of notes is fixed
// at creation; appends only grow existing notes, up to MaxNoteBytes each.
type store struct {
	mu    sync.Mutex
	notes map[string]Note
}

// newStore validates notes and returns a store holding copies of them.
func newStore(notes []Note) (*store, error) {
	s := &store{notes: make(map[string]Note, len(notes))}
	for i, n := range notes {
		if err := ValidID(n.ID); err != nil {
			return nil, fmt.Errorf("%w: note %d: %w", ErrInvalidOptions, i, err)
		}
		if _, dup := s.notes[n.ID]; dup {
			return nil, fmt.Errorf("%w: note %d: id %q appears twice", ErrInvalidOptions, i, n.ID)
		}
		if len(n.Text) > MaxNoteBytes {
			return nil, fmt.Errorf("%w: note %d: longer than %d bytes", ErrInvalidOptions, i, MaxNoteBytes)
		}
		s.notes[n.ID] = n
	}
	return s, nil
}

// get returns the note id.
func (s *store) get(id string) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, ErrNoNote
	}
	return n, nil
}

// appendText adds text as a new line at the end of note id and returns
// the note as it now is.
func (s *store) appendText(id, text string) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, ErrNoNote
	}
	sep := ""
	if n.Text != "" && !strings.HasSuffix(n.Text, "\n") {
		sep = "\n"
	}
	if len(n.Text)+len(sep)+len(text) > MaxNoteBytes {
		return Note{}, ErrNoteFull
	}
	n.Text += sep + text
	s.notes[id] = n
	return n, nil
}

// all returns every note, sorted by id.
func (s *store) all() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Note) int { return strings.Compare(a.ID, b.ID) })
	return out
}
