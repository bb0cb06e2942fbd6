package agentcard

import (
	"encoding/json"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// cardDepth bounds the nesting of an upstream card: a card is a few
// levels deep, an extension's params a few more.
const cardDepth = 64

// Decode reads an upstream card as the gateway reads a caller's request:
// one JSON object (RFC 8259, valid UTF-8, at most cardDepth deep) in
// which no object, at any depth, repeats a member name or holds two names
// that differ only in case under the Unicode simple folding encoding/json
// matches names with ("url" and "URL", "signatures" and "ſignatures").
// Such a card is refused (ErrCardRefused, with the jsonrpc sentinel of the
// rule): readers that take the first, the last or a case-insensitive
// match of a name would each read a different card.
//
// A member that folds to a name capgate knows but is not spelled like it
// (a lone "URL" or "ſignatures") is not refused here: it is an unknown
// member, which the served card does not carry (Rewrite).
func Decode(data []byte) (map[string]any, error) {
	strict, err := jsonrpc.NewStrict(cardDepth, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCardRefused, err)
	}
	if err := strict.Check(data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCardRefused, err)
	}
	var card map[string]any
	if err := json.Unmarshal(data, &card); err != nil || card == nil {
		return nil, fmt.Errorf("%w: %w: not a JSON object", ErrCardRefused, jsonrpc.ErrParse)
	}
	return card, nil
}
