package agentcard

import "errors"

// ErrFetch is wrapped when the upstream card cannot be fetched or parsed.
var ErrFetch = errors.New("agentcard: cannot fetch card")

// ErrRedirect is wrapped when the upstream answers a card fetch with a
// redirect, which is never followed.
var ErrRedirect = errors.New("agentcard: redirect refused")

// ErrCardRefused is wrapped when an upstream card breaks the rules the
// gateway reads JSON by (Decode): it is not one JSON object, or an object
// in it repeats a member name or holds two names that differ only in
// case. The jsonrpc sentinel of the rule it broke (jsonrpc.ErrParse,
// jsonrpc.ErrDuplicateKey, jsonrpc.ErrCaseVariantKey, ...) is wrapped too.
var ErrCardRefused = errors.New("agentcard: upstream card refused")

// ErrUnsigned is wrapped when a Source that signs (Config.Sign) cannot
// sign the card it would serve: the card is not served, as no card of
// such a source is served unsigned.
var ErrUnsigned = errors.New("agentcard: card cannot be signed")
