package cardsig_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/cardsig"
)

// TestSign signs a card with a gateway key set and verifies the detached
// signature with go-jose against the set's public keys, for both of the
// gateway's algorithms.
func TestSign(t *testing.T) {
	for _, alg := range []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256} {
		t.Run(string(alg), func(t *testing.T) {
			ks, err := captoken.GenerateKeySet(alg)
			if err != nil {
				t.Fatal(err)
			}
			card := decode(t, `{"name":"a","version":"1","supportedInterfaces":[{"url":"http://gw/a2a/a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilityGrants":[]}`)
			sig, err := cardsig.Sign(ks, card, "http://gw/.well-known/jwks.json")
			if err != nil {
				t.Fatal(err)
			}
			hb, _ := base64.RawURLEncoding.DecodeString(sig.Protected)
			var header map[string]string
			if err := json.Unmarshal(hb, &header); err != nil {
				t.Fatal(err)
			}
			if header["alg"] != string(alg) || header["kid"] != ks.ActiveKeyID() || header["typ"] != "JOSE" || header["jku"] != "http://gw/.well-known/jwks.json" {
				t.Errorf("protected header %v", header)
			}
			compact, err := cardsig.Compact(card, sig)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{alg})
			if err != nil {
				t.Fatal(err)
			}
			jwks := ks.JWKS()
			payload, err := obj.Verify(jwks.Key(ks.ActiveKeyID())[0])
			if err != nil || string(payload) != `{"name":"a","supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"http://gw/a2a/a"}],"version":"1"}` {
				t.Fatalf("Verify() = %s, %v", payload, err)
			}
		})
	}
}

func TestSignRefusals(t *testing.T) {
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cardsig.Sign(ks, decode(t, `{"name":1}`), ""); !errors.Is(err, cardsig.ErrNotCanonical) {
		t.Errorf("Sign(malformed card) error = %v, want ErrNotCanonical", err)
	}
	if _, err := cardsig.Sign(&captoken.KeySet{}, decode(t, `{"name":"a"}`), ""); !errors.Is(err, captoken.ErrKeySet) {
		t.Errorf("Sign(empty key set) error = %v, want ErrKeySet", err)
	}
	if _, err := ks.SignJWSWithHeader(cardsig.HeaderType, map[string]string{"kid": "other"}, []byte("{}")); !errors.Is(err, captoken.ErrConfig) {
		t.Errorf("SignJWSWithHeader(kid) error = %v, want ErrConfig", err)
	}
}
