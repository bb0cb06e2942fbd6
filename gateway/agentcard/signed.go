package agentcard

import "fmt"

// signed adds the gateway's signature to a rewritten card, when the
// source signs: the card's own signatures member is never kept (Rewrite
// removes the upstream's), so a served card carries the gateway's
// signature of exactly what it serves. A card the source cannot sign is
// an error (ErrUnsigned), never a card served unsigned; a source that
// does not sign serves its cards unsigned.
func (s *Source) signed(card map[string]any) (map[string]any, error) {
	delete(card, "signatures")
	if s.cfg.Sign == nil {
		return card, nil
	}
	sig, err := s.cfg.Sign(card)
	if err != nil {
		return nil, fmt.Errorf("%w: agent %s: %w", ErrUnsigned, s.cfg.Agent, err)
	}
	card["signatures"] = []any{sig}
	return card, nil
}
