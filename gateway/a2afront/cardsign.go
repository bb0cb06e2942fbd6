package a2afront

import (
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/cardsig"
)

// JWKSPath is where the gateway publishes the keys that verify its
// capability tokens and its agent card signatures.
const JWKSPath = "/.well-known/jwks.json"

// signedCards makes the card source sign every card it serves with the
// gateway's active key, as A2A v1.0 signs agent cards (package cardsig),
// naming the gateway's JWK set as jku.
func (f *Front) signedCards(cfg agentcard.Config) agentcard.Config {
	keys, jku := f.deps.Keys, f.cfg.PublicURL+JWKSPath
	cfg.Sign = func(card map[string]any) (any, error) {
		return cardsig.Sign(keys, card, jku)
	}
	return cfg
}
