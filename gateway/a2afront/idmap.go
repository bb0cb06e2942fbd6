package a2afront

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Ids never leak. A caller names resources only by the opaque handles of
// its capability; the agent acts on real ids. On the way in, the gateway
// rewrites handles to real ids (rewrite.go for invocations, scopeMessage
// for gated messages); on the way out, mapIDs rewrites every real id of
// the capability's resources that appears in any string of the answer
// (results, artifacts, status messages, every stream event) back to the
// caller's handle. A real id the gateway knows (from the agent's catalog)
// that maps to no handle of the caller's capability is redacted or, by
// config, refuses the answer. Ids are matched wherever they occur, even
// inside a longer word: a caller may see a longer word garbled, never an
// id.

// handleWord finds handle-shaped words in what a caller sends.
var handleWord = regexp.MustCompile(captoken.HandlePrefix + `[A-Za-z0-9_-]+`)

// errUnmappedID refuses an answer carrying a real id the caller holds no
// handle for, on an agent configured to refuse rather than redact.
var errUnmappedID = capErr(jsonrpc.CodeResourceNotPermitted,
	"the agent answered with a resource the capability does not designate", nil)

// idPair is one real id and what it becomes in an answer.
type idPair struct {
	old, new string
	refuse   bool
}

// refused stands in for an id whose answer is refused. An agent may send
// it too (JSON's "\u0000"), so a refusal is told by the count growing,
// not by its presence.
const refused = "\x00"

// replaceIDs replaces every occurrence of each pair's old in s, longest
// first: wherever it occurs, even inside a longer word, since an id glued
// to other text is still the id. It reports whether a refusing pair was
// found.
func replaceIDs(s string, pairs []idPair) (string, bool) {
	var args []string
	for _, p := range pairs {
		switch {
		case !strings.Contains(s, p.old):
		case p.refuse:
			args = append(args, p.old, refused)
		default:
			args = append(args, p.old, p.new)
		}
	}
	if len(args) == 0 {
		return s, false
	}
	out := strings.NewReplacer(args...).Replace(s)
	if strings.Count(out, refused) > strings.Count(s, refused) {
		return "", true
	}
	return out, false
}

// answerPairs are the rewrites of an answer to a call scoped to s: each of
// the capability's real ids to its handle, then every other id of the
// agent's catalog to the placeholder (or a refusal). Longest first, so a
// longer id wins over an id it contains.
func answerPairs(a *agent, s *capScope) []idPair {
	pairs := make([]idPair, 0, len(s.resources)+len(a.cfg.Catalog))
	mapped := make(map[string]bool, len(s.resources))
	for _, r := range s.resources {
		pairs, mapped[r.id] = append(pairs, idPair{old: r.id, new: r.handle}), true
	}
	refuse := a.cfg.UnmappedIDs == config.UnmappedRefuse
	for _, r := range a.cfg.Catalog {
		if !mapped[r.ID] && r.ID != "" {
			pairs = append(pairs, idPair{old: r.ID, new: config.UnmappedPlaceholder, refuse: refuse})
		}
	}
	slices.SortFunc(pairs, func(x, y idPair) int { return cmp.Compare(len(y.old), len(x.old)) })
	return pairs
}

// mapIDs is the answer processor of the id rule. Answers to calls not
// scoped to a capability pass untouched. On a stream, every event first
// re-checks that the capability is live, so a revocation ends the stream
// at its next event.
func (f *Front) mapIDs(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.scope == nil {
		return resp, nil
	}
	if jsonrpc.IsStreaming(c.req.Method) {
		if e := f.checks.live(ctx, c.scope.claims); e != nil {
			return nil, e
		}
	}
	if !mentionsIDs(resp, c.agent, c.scope) {
		return resp, nil
	}
	return mapAnswer(resp, answerPairs(c.agent, c.scope))
}

// scopedLine is the SSE line filter of a call scoped to a capability: the
// event, id and retry fields a client keeps (its Last-Event-ID) have their
// ids mapped like the data, a field that would be refused is dropped, and
// comments, which no client acts on, are dropped rather than scanned.
func scopedLine(pairs []idPair) func([]byte) ([]byte, bool) {
	return func(line []byte) ([]byte, bool) {
		if line[0] == ':' {
			return nil, false
		}
		out, refused := replaceIDs(string(line), pairs)
		return []byte(out), !refused
	}
}

// mentionsIDs is mapIDs' fast path, which builds nothing: an answer in
// which none of the ids answerPairs would rewrite appears, neither as
// written nor in any string literal once its escapes are decoded ("a\/b"
// is "a/b"), cannot carry one. resp is valid JSON.
func mentionsIDs(resp json.RawMessage, a *agent, s *capScope) bool {
	if anyAnswerID(a, s, func(id string) bool { return bytes.Contains(resp, []byte(id)) }) {
		return true
	}
	if bytes.IndexByte(resp, '\\') < 0 && utf8.Valid(resp) {
		return false
	}
	return eachLiteral(resp, func(lit []byte) bool {
		if plainLiteral(lit[1 : len(lit)-1]) {
			return false
		}
		str, _ := jsonrpc.Unquote(lit)
		return anyAnswerID(a, s, func(id string) bool { return strings.Contains(str, id) })
	})
}

// anyAnswerID reports whether fn holds for one of the real ids an answer
// to a call scoped to s is checked for: the capability's, then the
// agent's catalog's.
func anyAnswerID(a *agent, s *capScope, fn func(id string) bool) bool {
	for _, r := range s.resources {
		if fn(r.id) {
			return true
		}
	}
	for _, r := range a.cfg.Catalog {
		if r.ID != "" && fn(r.ID) {
			return true
		}
	}
	return false
}

// scopeMessage rewrites, in everything a gated send carries, each handle
// of the capability to its real id. A handle-shaped word that is not one
// of the capability's handles, or a real id the gateway knows, is refused:
// the caller names resources only by the handles it holds.
func scopeMessage(c *call, params map[string]json.RawMessage) *jsonrpc.Error {
	known := answerPairs(c.agent, c.scope)
	for k, raw := range params {
		out, err := mapStrings(raw, func(s string) (string, error) {
			if containsAny(s, known) {
				return "", errRealID
			}
			var bad bool
			s = handleWord.ReplaceAllStringFunc(s, func(h string) string {
				id, ok := c.scope.resources.id(h)
				bad = bad || !ok || !c.scope.claims.HasHandle(h)
				return id
			})
			if bad {
				return "", errForeignHandle
			}
			return s, nil
		})
		switch {
		case errors.Is(err, errRealID):
			return capErr(jsonrpc.CodeResourceNotPermitted, "resources are named by handle, not by id", nil)
		case errors.Is(err, errForeignHandle):
			return capErr(jsonrpc.CodeResourceNotPermitted, "resource handle is not in the capability", nil)
		case err != nil:
			return capErr(jsonrpc.CodeInvalidParams, "params are not valid JSON", nil)
		}
		params[k] = out
	}
	return nil
}

var (
	errRealID        = errors.New("a real resource id")
	errForeignHandle = errors.New("a handle of another capability")
)

// containsAny reports whether s holds one of pairs' ids.
func containsAny(s string, pairs []idPair) bool {
	for _, p := range pairs {
		if strings.Contains(s, p.old) {
			return true
		}
	}
	return false
}
