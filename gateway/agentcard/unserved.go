package agentcard

import (
	"errors"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Stable reason words for a card that cannot be served (Unserved).
const (
	// ReasonCardUnavailable: the upstream card could not be fetched.
	ReasonCardUnavailable = "card_unavailable"
	// ReasonCardRefused: the upstream card breaks the gateway's JSON
	// rules (ErrCardRefused).
	ReasonCardRefused = "card_refused"
	// ReasonCardUnsigned: the gateway could not sign the card it would
	// serve (ErrUnsigned).
	ReasonCardUnsigned = "card_unsigned"
)

// Unserved returns the stable reason word and a sentence for a caller of
// why Source.Card returned err. The sentence names the rule the card
// broke and nothing the card held; the error itself, for the log, has
// the detail.
func Unserved(err error) (reason, message string) {
	switch {
	case errors.Is(err, ErrUnsigned):
		return ReasonCardUnsigned, "the gateway cannot sign the agent's card, and serves no card unsigned"
	case errors.Is(err, ErrCardRefused) && errors.Is(err, jsonrpc.ErrDuplicateKey):
		return ReasonCardRefused, "the agent's card repeats a member name, or holds two that differ only in case"
	case errors.Is(err, ErrCardRefused):
		return ReasonCardRefused, "the agent's card is not a JSON object the gateway accepts"
	}
	return ReasonCardUnavailable, "the agent's card cannot be fetched"
}
