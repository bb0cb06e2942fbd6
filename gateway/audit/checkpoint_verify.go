package audit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// checkpointAlgorithms are the signature algorithms a checkpoint may use:
// those of the gateway's key set.
var checkpointAlgorithms = []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256}

// checkpoint applies the checkpoint rules to an event about to be
// accepted into c; restart means the event starts a segment (or follows
// a gap), which resets the count of events since the last checkpoint.
func (v *Verifier) checkpoint(c *chainCheck, ev event, restart bool) error {
	if restart {
		c.run = 0
	}
	if ev.name != CheckpointEvent {
		every := v.opts.CheckpointEvery
		if every <= 0 {
			every = DefaultCheckpointEvery
		}
		if c.run >= every {
			return fmt.Errorf("%w: more than %d events without a checkpoint: one was removed, "+
				"or the chain was rewritten without the signing key", ErrTampered, every)
		}
		c.run++
		c.rep.Unsigned++
		return nil
	}
	if ev.cpErr != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, ev.cpErr)
	}
	p, err := verifyCheckpointJWS(ev.jws, v.opts.Keys)
	if err != nil {
		return err
	}
	if p.Chain != ev.chain || p.Seq != ev.seq-1 || p.Hash != ev.prev {
		return fmt.Errorf("%w: checkpoint signs chain %q seq %d hash %.12s…, not the event before it",
			ErrTampered, p.Chain, p.Seq, p.Hash)
	}
	c.rep.Unsigned -= c.run
	c.run = 0
	c.rep.Checkpoints++
	c.rep.Signed = p.Seq
	v.checkpoints++
	return nil
}

// verifyCheckpointJWS checks a checkpoint's compact JWS against keys and
// returns the head it signs.
func verifyCheckpointJWS(jws string, keys *jose.JSONWebKeySet) (checkpointPayload, error) {
	var p checkpointPayload
	obj, err := jose.ParseSigned(jws, checkpointAlgorithms)
	if err != nil {
		return p, fmt.Errorf("%w: checkpoint signature unreadable: %w", ErrTampered, err)
	}
	if len(obj.Signatures) != 1 {
		return p, fmt.Errorf("%w: checkpoint must carry one signature", ErrTampered)
	}
	h := obj.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != CheckpointType {
		return p, fmt.Errorf("%w: checkpoint signature has typ %q, want %q", ErrTampered, typ, CheckpointType)
	}
	found := keys.Key(h.KeyID)
	if h.KeyID == "" || len(found) != 1 || !found[0].IsPublic() || found[0].Algorithm != h.Algorithm {
		return p, fmt.Errorf("%w: checkpoint signed by key %q, not one of the given keys", ErrTampered, h.KeyID)
	}
	payload, err := obj.Verify(found[0])
	if err != nil {
		return p, fmt.Errorf("%w: checkpoint signature does not verify with key %q", ErrTampered, h.KeyID)
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || dec.More() {
		return p, fmt.Errorf("%w: checkpoint payload is not a chain head", ErrTampered)
	}
	return p, nil
}
