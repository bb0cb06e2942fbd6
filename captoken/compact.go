package captoken

import (
	"math"
	"slices"
	"strings"
)

// span is where one string lies in a compactClaims' src.
type span struct{ off, n uint16 }

func (s span) of(src string) string { return src[s.off : s.off+s.n] }

// numStrings is the number of string claims (stringClaims).
const numStrings = 11

// stringClaims returns the addresses of c's string claims, in a fixed
// order.
func stringClaims(c *Claims) [numStrings]*string {
	return [numStrings]*string{
		&c.Issuer, &c.Principal, &c.Holder, &c.Audience, &c.CapabilityID, &c.ParentCapabilityID,
		&c.Grant, &c.RevocationID, &c.Purpose, &c.PolicyRevision, &c.SealedResources,
	}
}

// compactClaims is how the verified-claims cache keeps a claims set:
// every string is a span of one string, src, which is the packed token
// the claims were verified from when it holds them all (so an index that
// keeps the token and the cache share its bytes), else one string holding
// them end to end. It is immutable once built.
type compactClaims struct {
	src      string
	strs     [numStrings]span
	nOps     uint16
	nHandles uint16
	lists    []span // the operations, then the handles, then the ancestors
	exp      NumericDate
	nbf      NumericDate
	iat      NumericDate
	depth    int32
	maxDepth int32
	att      bool
}

// compact returns c's compact form over src, or over a string of its own
// when src does not hold every string of c (a string that JSON escapes in
// the payload, say, or no src at all). It reports false when the claims
// do not fit the form: a string past 64 KB, which no token under
// MaxTokenSize has, or a depth past 2^31.
func compact(c *Claims, src string) (compactClaims, bool) {
	if c.Depth > math.MaxInt32 || c.MaxDepth > math.MaxInt32 || c.Depth < 0 || c.MaxDepth < 0 {
		return compactClaims{}, false
	}
	strs := stringClaims(c)
	all := make([]string, 0, numStrings+len(c.Operations)+len(c.Handles)+len(c.Ancestors))
	for _, p := range strs {
		all = append(all, *p)
	}
	all = append(append(append(all, c.Operations...), c.Handles...), c.Ancestors...)
	if len(c.Operations)+len(c.Handles) > math.MaxUint16 {
		return compactClaims{}, false
	}
	spans, ok := locate(src, all)
	if !ok {
		src = strings.Join(all, "")
		if spans, ok = locate(src, all); !ok {
			return compactClaims{}, false
		}
	}
	cc := compactClaims{
		src: src, nOps: uint16(len(c.Operations)), nHandles: uint16(len(c.Handles)), lists: slices.Clone(spans[numStrings:]),
		exp: c.Expiry, nbf: c.NotBefore, iat: c.IssuedAt, depth: int32(c.Depth), maxDepth: int32(c.MaxDepth), att: c.Attenuable,
	}
	copy(cc.strs[:], spans)
	return cc, true
}

// locate returns the span of each of strs in src; false when one is not
// in it or lies past what a span can address.
func locate(src string, strs []string) ([]span, bool) {
	out := make([]span, len(strs))
	for i, s := range strs {
		if s == "" {
			continue
		}
		at := strings.Index(src, s)
		if at < 0 || at+len(s) > math.MaxUint16 {
			return nil, false
		}
		out[i] = span{off: uint16(at), n: uint16(len(s))}
	}
	return out, true
}

// claims returns a new Claims equal to the one cc was built from, the
// caller's to keep and modify. Empty lists come back nil, as Verify
// decodes them from a canonical payload.
func (cc *compactClaims) claims() *Claims {
	c := &Claims{
		Expiry: cc.exp, NotBefore: cc.nbf, IssuedAt: cc.iat, Depth: int(cc.depth), MaxDepth: int(cc.maxDepth), Attenuable: cc.att,
	}
	for i, p := range stringClaims(c) {
		*p = cc.strs[i].of(cc.src)
	}
	lists := make([]string, len(cc.lists))
	for i, s := range cc.lists {
		lists[i] = s.of(cc.src)
	}
	ops, handles := int(cc.nOps), int(cc.nOps)+int(cc.nHandles)
	c.Operations = nilIfEmpty(lists[:ops:ops])
	c.Handles = nilIfEmpty(lists[ops:handles:handles])
	c.Ancestors = nilIfEmpty(lists[handles:])
	return c
}

// nilIfEmpty returns nil for an empty list. The lists of one Claims share
// one array, each capped at its length, so appending to one never writes
// into another.
func nilIfEmpty(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return xs
}
