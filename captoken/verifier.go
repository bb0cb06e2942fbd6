package captoken

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// VerifierConfig configures a Verifier.
type VerifierConfig struct {
	// Issuer is the only accepted "iss". Required.
	Issuer string
	// Algorithms is the explicit list of accepted "alg" values: jose.EdDSA
	// and/or jose.ES256. Required: an empty list is an error, never a
	// default.
	Algorithms []jose.SignatureAlgorithm
	// Leeway is the clock skew tolerated on exp, nbf and iat. Not negative.
	Leeway time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// CacheSize bounds the cache of verified claims (entries); 0 disables it.
	CacheSize int
}

// Validate reports every problem of the configuration at once.
func (c VerifierConfig) Validate() error {
	var errs []error
	if c.Issuer == "" {
		errs = append(errs, fmt.Errorf("%w: issuer is required", ErrConfig))
	}
	if len(c.Algorithms) == 0 {
		errs = append(errs, fmt.Errorf("%w: algorithms must be listed explicitly", ErrConfig))
	}
	for _, a := range c.Algorithms {
		if a != jose.EdDSA && a != jose.ES256 {
			errs = append(errs, fmt.Errorf("%w: algorithm %q is not supported", ErrConfig, a))
		}
	}
	if c.Leeway < 0 {
		errs = append(errs, fmt.Errorf("%w: negative leeway", ErrConfig))
	}
	if c.CacheSize < 0 {
		errs = append(errs, fmt.Errorf("%w: negative cache size", ErrConfig))
	}
	return errors.Join(errs...)
}

// Expected holds per-call expectations for Verify.
type Expected struct {
	// Audience, when not empty, must equal the token's "aud".
	Audience string
}

// Verifier verifies capability tokens signed by one KeySet. It is safe for
// concurrent use.
//
// Revocation is NOT the verifier's job: Verify (cached or not) says only
// that the gateway minted the token, that it is in its validity window and
// for whom it is. The caller MUST check every id of Claims.RevocationIDs
// against the revocation store on every use, and key revocation and replay
// state on those ids, never on the token string: two different strings can
// carry the same signed claims (see TestVerifyNonCanonicalSignature).
type Verifier struct {
	ks    *KeySet
	cfg   VerifierConfig
	cache *claimsCache
}

// NewVerifier returns a verifier for tokens signed by ks.
func NewVerifier(ks *KeySet, cfg VerifierConfig) (*Verifier, error) {
	if ks == nil || ks.activeSigning() == nil {
		return nil, fmt.Errorf("%w: key set without keys", ErrConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Algorithms = slices.Clone(cfg.Algorithms)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &Verifier{ks: ks, cfg: cfg}
	if cfg.CacheSize > 0 {
		v.cache = newClaimsCache(cfg.CacheSize)
	}
	return v, nil
}

// Verify checks token and returns its claims. Every failure matches
// ErrInvalid except ErrExpired and ErrNotYetValid. In order: the size cap
// (ErrTooLarge) before any parsing; a strict header with only alg, kid and
// typ (ErrForbiddenHeader for jwk, jku, x5u, x5c, crit...); alg in the
// configured list (ErrAlgorithm); typ "cap+jwt" (ErrWrongType); kid naming a
// key of the set (ErrUnknownKey) whose algorithm is alg; exactly one
// signature, verified with that key (ErrInvalidSignature); claims that
// decode, are structurally valid (ErrMissingClaim, ErrInvalidClaims) and are
// byte-for-byte in the canonical form Mint produces (ErrMalformed); the issuer (ErrWrongIssuer); the audience if asked
// (ErrWrongAudience); exp, nbf and iat with leeway. A cached result skips
// only the signature and decoding steps. The returned claims are the
// caller's to keep and modify.
func (v *Verifier) Verify(ctx context.Context, token string, want Expected) (*Claims, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(token) > MaxTokenSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(token), MaxTokenSize)
	}
	now := v.cfg.Now()
	if v.cache == nil {
		return v.verifyFresh(cacheKey{}, token, "", now, want)
	}
	key := v.cache.key(token)
	if c, hit, err := v.fromCache(key, now, want); hit {
		return c, err
	}
	return v.verifyFresh(key, token, "", now, want)
}

// VerifyPacked is Verify of p's compact token, with the same checks, the
// same errors and the same cache entry; the zero Packed is ErrMalformed.
// Its claims are cached as spans of p, so a caller that keeps p (the
// capability index) and the cache share one copy of the token. On a cache
// hit the token is re-encoded into a pooled buffer only to be hashed: the
// string is built on a miss alone.
func (v *Verifier) VerifyPacked(ctx context.Context, p Packed, want Expected) (*Claims, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.IsZero() {
		return nil, fmt.Errorf("%w: no token", ErrMalformed)
	}
	if n := p.compactLen(); n > MaxTokenSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, n, MaxTokenSize)
	}
	now := v.cfg.Now()
	if v.cache == nil {
		return v.verifyFresh(cacheKey{}, p.String(), p.payload, now, want)
	}
	key := v.cache.packedKey(p)
	if c, hit, err := v.fromCache(key, now, want); hit {
		return c, err
	}
	return v.verifyFresh(key, p.String(), p.payload, now, want)
}

// verifyFresh verifies token, whose hash is key, and caches its claims;
// src is where the cache may find the claims' strings (see compact).
func (v *Verifier) verifyFresh(key cacheKey, token, src string, now time.Time, want Expected) (*Claims, error) {
	c, kid, err := v.verifyToken(token)
	if err != nil {
		return nil, err
	}
	if err := v.checkClaims(c, now, want); err != nil {
		return nil, err
	}
	if v.cache != nil {
		if cc, ok := compact(c, src); ok {
			v.cache.put(key, cc, kid)
			// Claims read from the compact form share its strings, so
			// what the caller keeps of them (a handle, the id) is not a
			// copy.
			return cc.claims(), nil
		}
	}
	return c, nil
}

// fromCache returns the claims cached under key, checked against the
// clock and want, and reports whether there was an entry. An entry whose
// signing key left the key set is dropped (a pruned key invalidates its
// cached tokens), and so is one found expired.
func (v *Verifier) fromCache(key cacheKey, now time.Time, want Expected) (*Claims, bool, error) {
	e, ok := v.cache.get(key)
	if !ok {
		return nil, false, nil
	}
	if _, ok := v.ks.verificationKey(e.kid); !ok {
		v.cache.remove(key)
		return nil, false, nil
	}
	c := e.claims.claims()
	if err := v.checkClaims(c, now, want); err != nil {
		if errors.Is(err, ErrExpired) {
			v.cache.remove(key)
		}
		return nil, true, err
	}
	return c, true, nil
}

// verifyToken runs every check that does not depend on the clock or the
// caller's expectations, and returns the claims and the signing kid.
func (v *Verifier) verifyToken(token string) (*Claims, string, error) {
	hseg, _, _, err := splitCompact(token)
	if err != nil {
		return nil, "", err
	}
	k, err := v.headerKey(hseg)
	if err != nil {
		return nil, "", err
	}
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{k.alg})
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if len(jws.Signatures) != 1 {
		return nil, "", fmt.Errorf("%w: want exactly one signature", ErrMalformed)
	}
	payload, err := jws.Verify(k.public)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrInvalidSignature, err)
	}
	c, err := decodeClaims(payload)
	if err != nil {
		return nil, "", err
	}
	if err := validateClaims(c); err != nil {
		return nil, "", err
	}
	if err := checkCanonical(c, payload); err != nil {
		return nil, "", err
	}
	if c.Issuer != v.cfg.Issuer {
		return nil, "", fmt.Errorf("%w: %q", ErrWrongIssuer, c.Issuer)
	}
	return c, k.kid, nil
}

// headerKey checks the header and returns the key it names. The key always
// comes from the key set; nothing in the token can supply one.
func (v *Verifier) headerKey(seg string) (*signingKey, error) {
	h, err := parseHeader(seg, true)
	if err != nil {
		return nil, err
	}
	alg := jose.SignatureAlgorithm(h.Algorithm)
	if !slices.Contains(v.cfg.Algorithms, alg) {
		return nil, fmt.Errorf("%w: %q", ErrAlgorithm, h.Algorithm)
	}
	if h.Type != TokenType {
		return nil, fmt.Errorf("%w: typ %q", ErrWrongType, h.Type)
	}
	k, ok := v.ks.verificationKey(h.KeyID)
	if !ok || h.KeyID == "" {
		return nil, fmt.Errorf("%w: kid %q", ErrUnknownKey, h.KeyID)
	}
	if k.alg != alg {
		return nil, fmt.Errorf("%w: key %q is %s, header says %s", ErrAlgorithm, k.kid, k.alg, alg)
	}
	return k, nil
}

// checkClaims runs the per-call checks: audience, then the clock.
func (v *Verifier) checkClaims(c *Claims, now time.Time, want Expected) error {
	if want.Audience != "" && c.Audience != want.Audience {
		return fmt.Errorf("%w: %q", ErrWrongAudience, c.Audience)
	}
	leeway := v.cfg.Leeway
	if exp := c.Expiry.Time(); !now.Before(exp.Add(leeway)) {
		return fmt.Errorf("%w: at %s", ErrExpired, exp.Format(time.RFC3339))
	}
	if nbf := c.NotBefore.Time(); c.NotBefore != 0 && now.Add(leeway).Before(nbf) {
		return fmt.Errorf("%w: not before %s", ErrNotYetValid, nbf.Format(time.RFC3339))
	}
	if iat := c.IssuedAt.Time(); now.Add(leeway).Before(iat) {
		return fmt.Errorf("%w: issued at %s", ErrNotYetValid, iat.Format(time.RFC3339))
	}
	return nil
}

// Unseal opens the sealed handle → resource-id map of claims returned by
// Verify. ErrSealedMap when the sealing key is unknown or pruned, the map
// was tampered with, sealed for another capability, or does not hold
// exactly the claims' handles.
func (v *Verifier) Unseal(c *Claims) (map[string]string, error) {
	return unseal(v.ks, c)
}

// ResourceID returns the real resource id behind one handle of c.
// ErrUnknownHandle when handle is not one of c's handles.
func (v *Verifier) ResourceID(c *Claims, handle string) (string, error) {
	if !c.HasHandle(handle) {
		return "", fmt.Errorf("%w: %q", ErrUnknownHandle, handle)
	}
	m, err := v.Unseal(c)
	if err != nil {
		return "", err
	}
	return m[handle], nil
}
