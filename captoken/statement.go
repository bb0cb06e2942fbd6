package captoken

import (
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// SignJWS signs payload with the active signing key as a compact JWS whose
// header is {"alg", "kid", "typ": typ}, for statements of the gateway
// other than capability tokens, such as audit checkpoints. Anyone holding
// the JWKS can check it. typ must be non-empty and must not be TokenType,
// so nothing signed here can pass for a capability token (Verify requires
// typ cap+jwt); verifiers of such statements must require their own typ.
func (ks *KeySet) SignJWS(typ string, payload []byte) (string, error) {
	return ks.SignJWSWithHeader(typ, nil, payload)
}

// SignJWSWithHeader is SignJWS with more protected header parameters,
// such as jku. They cannot replace alg, kid or typ.
func (ks *KeySet) SignJWSWithHeader(typ string, header map[string]string, payload []byte) (string, error) {
	for k := range header {
		if k == "alg" || k == "kid" || k == "typ" || k == "crit" || k == "b64" {
			return "", fmt.Errorf("%w: header parameter %q is set by the signer", ErrConfig, k)
		}
	}
	if typ == "" || typ == TokenType {
		return "", fmt.Errorf("%w: statement type %q", ErrConfig, typ)
	}
	k := ks.activeSigning()
	if k == nil {
		return "", fmt.Errorf("%w: no keys", ErrKeySet)
	}
	return signCompactWith(k, typ, header, payload)
}

// signCompact signs payload with k as a compact JWS of type typ.
func signCompact(k *signingKey, typ string, payload []byte) (string, error) {
	return signCompactWith(k, typ, nil, payload)
}

// signCompactWith is signCompact with more protected header parameters.
func signCompactWith(k *signingKey, typ string, header map[string]string, payload []byte) (string, error) {
	signer, err := k.signer(typ, header)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("captoken: signing: %w", err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		return "", fmt.Errorf("captoken: serialising: %w", err)
	}
	return out, nil
}

// signer returns a go-jose signer for typ and header: the key's cached one
// when header adds nothing, a new one otherwise.
func (k *signingKey) signer(typ string, header map[string]string) (jose.Signer, error) {
	if len(header) == 0 {
		if s, ok := k.signers.Load(typ); ok {
			return s.(jose.Signer), nil
		}
	}
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ))
	for name, v := range header {
		opts = opts.WithHeader(jose.HeaderKey(name), v)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.private}, opts)
	if err != nil {
		return nil, fmt.Errorf("captoken: signer: %w", err)
	}
	if len(header) == 0 {
		k.signers.Store(typ, s)
	}
	return s, nil
}
