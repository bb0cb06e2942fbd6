package approval

import (
	"errors"
	"fmt"
	"strings"
)

// maxNamedIDs bounds the ids ForgedError's message names.
const maxNamedIDs = 10

// ForgedError names the requests a listing left out because their MAC did
// not verify: tampered with, or written by someone without the key. Such a
// request is never decided or redeemed, but it is named rather than
// hidden. It wraps ErrForged, never ErrUnavailable.
type ForgedError struct {
	// IDs are the ids the records claim, sorted. A forged record's fields,
	// its id included, are whatever its writer chose.
	IDs []string
}

// Error names the count and the first few ids.
func (e *ForgedError) Error() string {
	var b strings.Builder
	if len(e.IDs) == 1 {
		b.WriteString("approval: 1 stored request fails its MAC: ")
	} else {
		fmt.Fprintf(&b, "approval: %d stored requests fail their MAC: ", len(e.IDs))
	}
	b.WriteString(strings.Join(e.IDs[:min(len(e.IDs), maxNamedIDs)], ", "))
	if n := len(e.IDs) - maxNamedIDs; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	return b.String()
}

// Unwrap returns ErrForged.
func (e *ForgedError) Unwrap() error { return ErrForged }

// Partial reports whether err, returned by List, says only that the
// records of ids failed their MAC: the requests returned with it are then
// every one that verifies, and the listing answered in part. It is false
// for nil, and for an error that is or joins anything else, ErrUnavailable
// above all, whatever ids it also names: that listing failed, and its
// caller fails closed.
func Partial(err error) (ids []string, ok bool) {
	if err == nil || errors.Is(err, ErrUnavailable) || !onlyForged(err, &ids) {
		return nil, false
	}
	return ids, len(ids) > 0
}

// onlyForged reports whether every error err's tree ends in is a
// *ForgedError, appending their ids to ids.
func onlyForged(err error, ids *[]string) bool {
	switch e := err.(type) {
	case *ForgedError:
		*ids = append(*ids, e.IDs...)
		return true
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		for _, w := range errs {
			if !onlyForged(w, ids) {
				return false
			}
		}
		return len(errs) > 0
	case interface{ Unwrap() error }:
		w := e.Unwrap()
		return w != nil && onlyForged(w, ids)
	}
	return false
}
