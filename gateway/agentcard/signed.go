package agentcard

import "context"

// signed adds the gateway's signature to a rewritten card, when the
// source signs: the card's own signatures member is never kept (Rewrite
// removes the upstream's), so a served card carries the gateway's
// signature of exactly what it serves, or none.
func (s *Source) signed(ctx context.Context, card map[string]any) map[string]any {
	delete(card, "signatures")
	if s.cfg.Sign == nil {
		return card
	}
	sig, err := s.cfg.Sign(card)
	if err != nil {
		s.logger.WarnContext(ctx, "agent card not signed; serving it unsigned", "agent", s.cfg.Agent, "error", err)
		return card
	}
	card["signatures"] = []any{sig}
	return card
}
