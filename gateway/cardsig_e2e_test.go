package gateway_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/gateway/cardsig"
)

// getJSON fetches url and decodes its JSON body into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, v) != nil {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
}

// TestServedCardSignature checks the signature of every served card with
// go-jose against the gateway's JWK set at /.well-known/jwks.json: one
// signature, the gateway's, over the card's A2A v1.0 canonical form; the
// upstream's own signature is never passed on, and a changed v1.0 member
// no longer verifies.
func TestServedCardSignature(t *testing.T) {
	signed, err := os.ReadFile("agentcard/testdata/v1_upstream.json")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, rawUpstream{http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(signed) // a card with the upstream's own signature
	})}, nil)
	var jwks jose.JSONWebKeySet
	getJSON(t, h.srv.URL+"/.well-known/jwks.json", &jwks)
	for _, agent := range []string{"documents", "extra"} {
		t.Run(agent, func(t *testing.T) {
			var card map[string]any
			getJSON(t, h.srv.URL+"/a2a/"+agent+"/.well-known/agent-card.json", &card)
			sigs, _ := card["signatures"].([]any)
			if len(sigs) != 1 {
				t.Fatalf("signatures %v, want the gateway's one", card["signatures"])
			}
			var sig cardsig.Signature
			raw, _ := json.Marshal(sigs[0])
			if err := json.Unmarshal(raw, &sig); err != nil {
				t.Fatal(err)
			}
			header := protectedHeader(t, sig)
			if header["typ"] != "JOSE" || header["jku"] != "http://gateway.test/.well-known/jwks.json" {
				t.Errorf("protected header %v", header)
			}
			keys := jwks.Key(header["kid"])
			if len(keys) != 1 {
				t.Fatalf("kid %q is not in the gateway's JWK set", header["kid"])
			}
			if err := verifyCard(card, sig, keys[0]); err != nil {
				t.Fatalf("the served card's signature does not verify: %v", err)
			}
			card["name"] = "someone else"
			if verifyCard(card, sig, keys[0]) == nil {
				t.Error("a card whose name changed still verifies")
			}
		})
	}
}

func protectedHeader(t *testing.T, sig cardsig.Signature) map[string]string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(sig.Protected)
	var header map[string]string
	if err != nil || json.Unmarshal(b, &header) != nil {
		t.Fatalf("protected header %q: %v", sig.Protected, err)
	}
	return header
}

// verifyCard verifies a detached card signature with go-jose.
func verifyCard(card map[string]any, sig cardsig.Signature, key jose.JSONWebKey) error {
	compact, err := cardsig.Compact(card, sig)
	if err != nil {
		return err
	}
	obj, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256})
	if err != nil {
		return err
	}
	_, err = obj.Verify(key)
	return err
}
