package interop_test

import (
	"testing"
)

type verifyOut struct {
	Error    *stepErr       `json:"error"`
	Served   map[string]any `json:"served"`
	Resolved map[string]any `json:"resolved"`
	Tampered map[string]any `json:"tampered"`
}

// TestJSClientVerifiesCardSignature checks each served card's signature
// with the JS SDK's own verifier (verifyAgentCardSignature), the key
// fetched from the jku the signature names: the gateway signs what it
// serves as the SDK canonicalizes it, and a changed card does not verify.
//
// The SDK's client also verifies the card it resolved. For a card with no
// v0.3 members (jsv1's) that fails whoever signed it: the SDK's resolver
// has already parsed such a card into its internal form, which its
// verifier parses a second time, losing the securitySchemes, so the
// payload it checks is not the card's canonical form.
func TestJSClientVerifiesCardSignature(t *testing.T) {
	w := startWorld(t, true)
	for _, agent := range []string{v03Agent, sepAgent, v1Agent, bothAgent} {
		t.Run(agent, func(t *testing.T) {
			var out verifyOut
			runClient(t, w.kit, "verify", map[string]any{"base": w.base(agent)}, &out)
			if out.Error != nil {
				t.Fatalf("client failed: %+v", out.Error)
			}
			if out.Served["verified"] != true {
				t.Errorf("the served card does not verify: %v", out.Served)
			}
			if out.Resolved["verified"] != true && agent != v1Agent {
				t.Errorf("the card the SDK's client resolved does not verify: %v", out.Resolved)
			}
			if out.Tampered["verified"] == true {
				t.Error("a changed card verifies")
			}
		})
	}
}
