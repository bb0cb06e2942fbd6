package captoken

import (
	"crypto/rand"
	"fmt"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Publish is the first step of a staged rotation. It generates a fresh
// signing key for alg and a fresh sealing key and adds them as the
// published keys: from now on they verify tokens and open resource maps,
// and the JWKS lists the signing key, but nothing is signed or sealed with
// them until Activate. One pair at a time may wait: Publish refuses
// (ErrKeySet) while keys are published and not yet active.
func (ks *KeySet) Publish(alg jose.SignatureAlgorithm) error {
	ks.rotateMu.Lock()
	defer ks.rotateMu.Unlock()
	if ks.activeSigning() == nil || ks.activeSealing() == nil {
		return fmt.Errorf("%w: no keys", ErrKeySet)
	}
	if kid := ks.PublishedKeyID(); kid != "" {
		return fmt.Errorf("%w: key %s is already published; activate it first", ErrKeySet, kid)
	}
	r := ks.rand
	if r == nil {
		r = rand.Reader
	}
	sk, err := newSigningKey(alg, r)
	if err != nil {
		return err
	}
	ek, err := newSealingKey(r)
	if err != nil {
		return err
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.nextSigning, ks.nextSealing = sk, ek
	return nil
}

// PublishedKeyID returns the kid of the published signing key, "" when no
// key waits for activation.
func (ks *KeySet) PublishedKeyID() string {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	if ks.nextSigning == nil {
		return ""
	}
	return ks.nextSigning.kid
}

// Activate is the second step of a staged rotation: the published signing
// and sealing keys become active, and the keys active so far become
// previous keys retired at now, still verifying until Prune removes them.
// kid must name the published signing key (or the published sealing key);
// anything else is refused with ErrKeySet.
func (ks *KeySet) Activate(kid string, now time.Time) error {
	ks.rotateMu.Lock()
	defer ks.rotateMu.Unlock()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.nextSigning == nil || (kid != ks.nextSigning.kid && kid != ks.nextSealing.kid) {
		return fmt.Errorf("%w: %q is not a published key", ErrKeySet, kid)
	}
	ks.signing[0].retired = now
	ks.sealing[0].retired = now
	ks.signing = append([]*signingKey{ks.nextSigning}, ks.signing...)
	ks.sealing = append([]*sealingKey{ks.nextSealing}, ks.sealing...)
	ks.nextSigning, ks.nextSealing = nil, nil
	return nil
}

// PruneKey removes one previous key, signing or sealing, by kid. It
// refuses (ErrKeySet) an unknown kid, an active or published key, and a
// key retired at or after before: pass now minus the longest token
// lifetime, so that no token the key signed or sealed can still be live.
func (ks *KeySet) PruneKey(kid string, before time.Time) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	retired, found := time.Time{}, false
	for _, k := range ks.signing {
		if k.kid == kid {
			retired, found = k.retired, true
		}
	}
	for _, k := range ks.sealing {
		if k.kid == kid {
			retired, found = k.retired, true
		}
	}
	switch {
	case !found && ks.nextSigning != nil && (kid == ks.nextSigning.kid || kid == ks.nextSealing.kid):
		return fmt.Errorf("%w: %s is published, not retired", ErrKeySet, kid)
	case !found:
		return fmt.Errorf("%w: no key %q", ErrKeySet, kid)
	case retired.IsZero():
		return fmt.Errorf("%w: %s is the active key", ErrKeySet, kid)
	case !retired.Before(before):
		return fmt.Errorf("%w: %s was retired at %s, tokens it signed may still be live",
			ErrKeySet, kid, retired.UTC().Format(time.RFC3339))
	}
	ks.signing = slices.DeleteFunc(ks.signing, func(k *signingKey) bool { return k.kid == kid })
	ks.sealing = slices.DeleteFunc(ks.sealing, func(k *sealingKey) bool { return k.kid == kid })
	return nil
}
