package enforce

import (
	"bytes"
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/capgate/capgate/captoken"
)

// Ids never leak. A caller names resources only by the opaque handles of
// its capability; the upstream acts on real ids. On the way in, handles
// become real ids (RewriteArguments for arguments, Scope.Inbound for free
// text); on the way out, an IDMap rewrites every real id of the
// capability's resources that appears in any string of the answer back
// to the caller's handle. A real id the gateway knows (from the target's
// catalog) that maps to no handle of the caller's capability is redacted
// or refuses the answer. Ids are matched wherever they occur, even inside
// a longer word: a caller may see a longer word garbled, never an id.

// Known is what the gateway knows of a target beyond one capability: the
// real ids of its catalog, and what becomes of one the capability does
// not designate.
type Known struct {
	// IDs are the catalog's real resource ids; empty ids are ignored.
	IDs []string
	// Placeholder replaces an id the capability does not designate.
	Placeholder string
	// Refuse refuses an answer carrying such an id instead.
	Refuse bool
}

// idPair is one real id and what it becomes in an answer.
type idPair struct {
	old, new string
	refuse   bool
}

// IDMap is the rewrite of answers to a call scoped to a capability. It is
// immutable once built and safe for concurrent use.
type IDMap struct{ pairs []idPair }

// refused stands in for an id whose answer is refused. An upstream may
// send it too (JSON's "\u0000"), so a refusal is told by the count
// growing, not by its presence.
const refused = "\x00"

// IDMap builds the rewrites of an answer to a call scoped to s: each of
// the capability's real ids to its handle, then every other id known to
// the placeholder (or a refusal). Longest first, so a longer id wins over
// an id it contains.
func (s *Scope) IDMap(k Known) *IDMap {
	pairs := make([]idPair, 0, len(s.Resources)+len(k.IDs))
	mapped := make(map[string]bool, len(s.Resources))
	for _, r := range s.Resources {
		pairs, mapped[r.ID] = append(pairs, idPair{old: r.ID, new: r.Handle}), true
	}
	for _, id := range k.IDs {
		if !mapped[id] && id != "" {
			pairs = append(pairs, idPair{old: id, new: k.Placeholder, refuse: k.Refuse})
		}
	}
	slices.SortFunc(pairs, func(x, y idPair) int { return cmp.Compare(len(y.old), len(x.old)) })
	return &IDMap{pairs: pairs}
}

// AnyID reports whether fn holds for one of the real ids an answer to a
// call scoped to s is checked for: the capability's, then the known
// ones. It builds nothing, for the fast path of an answer that names no
// id at all.
func (s *Scope) AnyID(k Known, fn func(id string) bool) bool {
	for _, r := range s.Resources {
		if fn(r.ID) {
			return true
		}
	}
	for _, id := range k.IDs {
		if id != "" && fn(id) {
			return true
		}
	}
	return false
}

// Replace replaces every occurrence of each id in str, longest first:
// wherever it occurs, even inside a longer word, since an id glued to
// other text is still the id. It reports whether an id whose answer is
// refused was found; the string is then empty.
func (m *IDMap) Replace(str string) (string, bool) {
	var args []string
	for _, p := range m.pairs {
		switch {
		case !strings.Contains(str, p.old):
		case p.refuse:
			args = append(args, p.old, refused)
		default:
			args = append(args, p.old, p.new)
		}
	}
	if len(args) == 0 {
		return str, false
	}
	out := strings.NewReplacer(args...).Replace(str)
	if strings.Count(out, refused) > strings.Count(str, refused) {
		return "", true
	}
	return out, false
}

// In reports whether one of the map's ids occurs in b as written.
func (m *IDMap) In(b []byte) bool {
	return slices.ContainsFunc(m.pairs, func(p idPair) bool { return bytes.Contains(b, []byte(p.old)) })
}

// contains reports whether str holds one of the map's ids.
func (m *IDMap) contains(str string) bool {
	return slices.ContainsFunc(m.pairs, func(p idPair) bool { return strings.Contains(str, p.old) })
}

// handleWord finds handle-shaped words in what a caller sends.
var handleWord = regexp.MustCompile(captoken.HandlePrefix + `[A-Za-z0-9_-]+`)

// Inbound rewrites, in a string a caller sends on a call scoped to s,
// each handle of the capability to its real id. A handle-shaped word that
// is not one of the capability's handles, or a real id in known (as built
// by s.IDMap), is refused: the caller names resources only by the handles
// it holds.
func (s *Scope) Inbound(known *IDMap, str string) (string, *Refusal) {
	if known.contains(str) {
		return "", namedByID()
	}
	var bad bool
	str = handleWord.ReplaceAllStringFunc(str, func(h string) string {
		id, ok := s.Resources.ID(h)
		bad = bad || !ok || !s.Claims.HasHandle(h)
		return id
	})
	if bad {
		return "", notInCapability()
	}
	return str, nil
}
