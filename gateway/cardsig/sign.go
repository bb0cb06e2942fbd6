package cardsig

import (
	"fmt"
	"strings"
)

// HeaderType is the typ of a card signature's protected header, as A2A
// v1.0 recommends.
const HeaderType = "JOSE"

// JWSSigner signs a payload as a compact JWS of type typ with the extra
// protected header parameters, the key's alg and kid set by the signer
// (captoken.KeySet.SignJWSWithHeader).
type JWSSigner interface {
	SignJWSWithHeader(typ string, header map[string]string, payload []byte) (string, error)
}

// Signature is one entry of a card's signatures member: the JWS's
// protected header and signature, its payload being the card's canonical
// form.
type Signature struct {
	Protected string `json:"protected"`
	Signature string `json:"signature"`
}

// Sign signs card's canonical form with s; jku, when set, is the URL of
// the JWK set that holds the key and goes into the protected header.
func Sign(s JWSSigner, card map[string]any, jku string) (Signature, error) {
	payload, err := Canonical(card)
	if err != nil {
		return Signature{}, err
	}
	var header map[string]string
	if jku != "" {
		header = map[string]string{"jku": jku}
	}
	compact, err := s.SignJWSWithHeader(HeaderType, header, payload)
	if err != nil {
		return Signature{}, fmt.Errorf("cardsig: signing: %w", err)
	}
	parts := strings.Split(compact, ".")
	if len(parts) != 3 {
		return Signature{}, fmt.Errorf("cardsig: signer returned %d JWS parts, want 3", len(parts))
	}
	return Signature{Protected: parts[0], Signature: parts[2]}, nil
}

// Compact rebuilds the compact JWS of a detached card signature: the
// protected header, the card's canonical form, the signature; for a
// verifier such as go-jose's ParseSigned.
func Compact(card map[string]any, sig Signature) (string, error) {
	payload, err := Canonical(card)
	if err != nil {
		return "", err
	}
	return sig.Protected + "." + b64(payload) + "." + sig.Signature, nil
}
