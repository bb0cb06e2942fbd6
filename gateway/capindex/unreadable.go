package capindex

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnreadable is wrapped when a listing met live records it could not
// read: bytes that do not decode (corrupt, or written by an incompatible
// version), a key of another type, the record of another capability than
// the id it is stored under, or no record at all while the listing says
// the capability is live well past now (deleted or evicted). Such a
// capability may still be live; the listing names it (see
// UnreadableError) instead of hiding it.
var ErrUnreadable = errors.New("capindex: unreadable records")

// maxNamedIDs bounds the ids UnreadableError's message names.
const maxNamedIDs = 10

// UnreadableError names the capabilities whose records a listing could
// not read. It wraps ErrUnreadable.
type UnreadableError struct {
	// IDs are the capability ids, sorted.
	IDs []string
	// Missing are those of IDs, sorted, whose record is not there at all
	// (deleted or evicted) although the listing says the capability is
	// live; the others' records are there but do not read.
	Missing []string
}

// Error names the count and the first few ids, then the missing ones.
func (e *UnreadableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "capindex: %d unreadable record", len(e.IDs))
	if len(e.IDs) != 1 {
		b.WriteString("s")
	}
	b.WriteString(": ")
	writeIDs(&b, e.IDs)
	if len(e.Missing) > 0 {
		fmt.Fprintf(&b, " (%d missing: ", len(e.Missing))
		writeIDs(&b, e.Missing)
		b.WriteString(")")
	}
	return b.String()
}

// writeIDs writes the first maxNamedIDs of ids, then how many more.
func writeIDs(b *strings.Builder, ids []string) {
	b.WriteString(strings.Join(ids[:min(len(ids), maxNamedIDs)], ", "))
	if n := len(ids) - maxNamedIDs; n > 0 {
		fmt.Fprintf(b, " and %d more", n)
	}
}

// Unwrap returns ErrUnreadable.
func (e *UnreadableError) Unwrap() error { return ErrUnreadable }

// UnreadableIDs returns the ids every *UnreadableError in err's tree
// names, sorted, once each; nil when none. Whether the listing that
// returned err answered at all is Partial's to say.
func UnreadableIDs(err error) []string {
	return collectIDs(err, func(u *UnreadableError) []string { return u.IDs })
}

// MissingIDs returns, of the ids UnreadableIDs names, those whose record
// is gone (deleted or evicted while its capability is live), as opposed to
// present but undecodable; nil when none.
func MissingIDs(err error) []string {
	return collectIDs(err, func(u *UnreadableError) []string { return u.Missing })
}

// collectIDs gathers pick's ids from every *UnreadableError in err's
// tree, joined or wrapped: errors.As would stop at the first.
func collectIDs(err error, pick func(*UnreadableError) []string) []string {
	var ids []string
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case *UnreadableError:
			ids = append(ids, pick(e)...)
		case interface{ Unwrap() []error }:
			for _, w := range e.Unwrap() {
				walk(w)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Partial reports whether err, returned by List or ListByPrincipal, says
// only that the records of ids could not be read: the records returned
// with it are then every readable one, and the listing answered in part.
// It is false for nil, and for an error that is or joins anything else,
// ErrUnavailable above all, whatever ids it also names: that listing
// failed, and its caller fails closed.
func Partial(err error) (ids []string, ok bool) {
	if err == nil || errors.Is(err, ErrUnavailable) || !onlyUnreadable(err) {
		return nil, false
	}
	ids = UnreadableIDs(err)
	return ids, len(ids) > 0
}

// onlyUnreadable reports whether every error err's tree ends in is an
// *UnreadableError or ErrUnreadable.
func onlyUnreadable(err error) bool {
	switch e := err.(type) {
	case *UnreadableError:
		return true
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		for _, w := range errs {
			if !onlyUnreadable(w) {
				return false
			}
		}
		return len(errs) > 0
	case interface{ Unwrap() error }:
		w := e.Unwrap()
		return w != nil && onlyUnreadable(w)
	}
	return err == ErrUnreadable
}
