package gateway_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
)

// TestInvokeAllowed checks the allowed path: the handle is rewritten to
// the real id, the capability context travels in trusted headers, and
// neither the token nor the handle reaches the agent.
func TestInvokeAllowed(t *testing.T) {
	h := newHarness(t, nil, nil)
	c := h.aliceQ1()
	_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("retrieve_document", c.ID,
		map[string]any{"resourceHandle": c.handle("Q1 Financial Summary")}))
	if r.Error != nil {
		t.Fatalf("refused: %+v", r.Error)
	}
	if !strings.Contains(string(r.Result), "Q1 Financial Summary") {
		t.Errorf("result = %s", r.Result)
	}
	reqs := h.docs.Recorder().Requests()
	last := reqs[len(reqs)-1]
	body := string(last.Body)
	if !strings.Contains(body, `"resourceId":"reports/q1-financial"`) || strings.Contains(body, "rh_") || strings.Contains(body, c.Token) {
		t.Errorf("forwarded body = %s", body)
	}
	if last.Header.Get("A2A-Capability-Id") != c.ID || last.Header.Get("A2A-Capability-Principal") != "user:alice@example.com" {
		t.Errorf("capability headers = %v", last.Header)
	}
}

// TestInvokeRejections covers every rejection code of the invocation path.
// None of the refused calls may reach the agent.
func TestInvokeRejections(t *testing.T) {
	h := newHarness(t, nil, nil)
	alice := h.aliceQ1()
	other := h.aliceQ1()
	fin := alice.handle("Q1 Financial Summary")
	forged := tamper(t, alice.Token)
	foreign := foreignToken(t, h, alice)
	tests := []struct {
		name   string
		key    string
		params map[string]any
		hdr    []string
		code   int
		reason string
	}{
		{"no capability", "alice-dev-key", invokeParams("retrieve_document", "", map[string]any{"resourceHandle": fin}), nil, -32040, "capability_required"},
		{"unknown capability id", "alice-dev-key", invokeParams("retrieve_document", "cap_doesnotexist", map[string]any{"resourceHandle": fin}), nil, -32041, "capability_invalid"},
		{"forged token in params", "alice-dev-key", withToken(invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": fin}), forged), nil, -32041, "capability_invalid"},
		{"forged token in header", "alice-dev-key", invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": fin}), []string{"A2A-Capability", forged}, -32041, "capability_invalid"},
		{"token of another capability", "alice-dev-key", withToken(invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": fin}), other.Token), nil, -32041, "capability_invalid"},
		{"token from another key set", "alice-dev-key", withToken(invokeParams("retrieve_document", "", map[string]any{"resourceHandle": fin}), foreign), nil, -32041, "capability_invalid"},
		{"OIDC token as a capability", "alice-dev-key", withToken(invokeParams("retrieve_document", "", map[string]any{"resourceHandle": fin}), h.token(nil)), nil, -32041, "capability_invalid"},
		{"bob presents alice's id", "bob-dev-key", invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": fin}), nil, -32046, "holder_mismatch"},
		{"bob presents alice's token", "bob-dev-key", withToken(invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": fin}), alice.Token), nil, -32046, "holder_mismatch"},
		{"operation not in capability", "alice-dev-key", invokeParams("update_document", alice.ID, map[string]any{"resourceHandle": fin, "content": "x"}), nil, -32044, "operation_not_permitted"},
		{"handle of another capability", "alice-dev-key", invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": other.ResourceHandles[0].Handle}), nil, -32045, "resource_not_permitted"},
		{"made-up handle", "alice-dev-key", invokeParams("retrieve_document", alice.ID, map[string]any{"resourceHandle": "rh_guess"}), nil, -32045, "resource_not_permitted"},
		{"real id instead of a handle", "alice-dev-key", invokeParams("retrieve_document", alice.ID, map[string]any{"resourceId": "hr/salaries-2025"}), nil, -32045, "resource_not_permitted"},
		{"handle list with a stranger", "alice-dev-key", invokeParams("list_documents", alice.ID, map[string]any{"resourceHandles": []string{fin, "rh_x"}}), nil, -32045, "resource_not_permitted"},
		{"unknown skill", "alice-dev-key", invokeParams("drop_tables", alice.ID, nil), nil, -32602, ""},
		{"unknown param member", "alice-dev-key", map[string]any{"skill": "retrieve_document", "capabilityId": alice.ID, "capabilityID": "x"}, nil, -32600, "duplicate_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := h.rpc(tt.key, "a2a/skill/invoke", tt.params, tt.hdr...)
			wantCode(t, r, tt.code, tt.reason)
			if n := h.invokeCount(); n != 0 {
				t.Fatalf("the agent saw %d invocation(s); a refused call must never reach it", n)
			}
		})
	}
}

// TestInvokeExpired uses the gateway's injected clock.
func TestInvokeExpired(t *testing.T) {
	clk := &clock{now: time.Now()}
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Now = clk.Now })
	c := h.aliceQ1()
	clk.Advance(2 * time.Hour)
	_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", withToken(invokeParams("retrieve_document", c.ID,
		map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}), c.Token))
	wantCode(t, r, -32042, "capability_expired")
	if h.invokeCount() != 0 {
		t.Fatal("the agent saw an expired invocation")
	}
}

// TestMalleatedTokenStillRevoked changes the unused bits of the last
// base64url character of the signature. The token still verifies, and
// must still be refused once its capability is revoked: revocation is
// keyed on the capability id, never on the token string.
func TestMalleatedTokenStillRevoked(t *testing.T) {
	h := newHarness(t, nil, nil)
	c := h.aliceQ1()
	malleated := flipUnusedBits(c.Token)
	if malleated == c.Token {
		t.Skip("signature encoding has no unused bits")
	}
	args := map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}
	if _, r := h.rpc("alice-dev-key", "a2a/skill/invoke", withToken(invokeParams("retrieve_document", c.ID, args), malleated)); r.Error != nil {
		t.Fatalf("malleated token should verify as the same capability: %+v", r.Error)
	}
	if _, r := h.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": c.ID}); r.Error != nil {
		t.Fatalf("revoke: %+v", r.Error)
	}
	h.docs.Recorder().Reset()
	_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", withToken(invokeParams("retrieve_document", c.ID, args), malleated))
	wantCode(t, r, -32043, "capability_revoked")
	if h.invokeCount() != 0 {
		t.Fatal("the agent saw an invocation of a revoked capability")
	}
}

func withToken(p map[string]any, token string) map[string]any {
	p["capabilityToken"] = token
	return p
}

// tamper changes one claim of a token without re-signing it.
func tamper(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	claims, _, err := captoken.UnsafeClaimsWithoutVerification(token)
	if err != nil {
		t.Fatal(err)
	}
	claims.Operations = append(claims.Operations, "delete")
	b, _ := json.Marshal(claims)
	parts[1] = b64(b)
	return strings.Join(parts, ".")
}

// foreignToken mints a well-formed token for alice with another key set.
func foreignToken(t *testing.T, h *harness, c issued) string {
	t.Helper()
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	claims, _, err := captoken.UnsafeClaimsWithoutVerification(c.Token)
	if err != nil {
		t.Fatal(err)
	}
	claims.CapabilityID = captoken.NewCapabilityID()
	claims.Handles, claims.SealedResources = nil, ""
	tok, err := captoken.Mint(ks, *claims, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func flipUnusedBits(token string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, token[len(token)-1])
	// A 64-byte signature ends in a character carrying 4 data bits and 2
	// unused bits; setting an unused bit decodes to the same bytes.
	return token[:len(token)-1] + string(alphabet[last^1])
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// TestInvokeCaseVariantArguments: a case variant of a resource argument
// would be read as the real one by an agent decoding case-insensitively.
func TestInvokeCaseVariantArguments(t *testing.T) {
	h := newHarness(t, nil, nil)
	c := h.aliceQ1()
	for _, args := range []map[string]any{
		{"ResourceId": "hr/salaries-2025"},
		{"resourceids": []string{"hr/salaries-2025"}},
		{"ResourceHandle": c.ResourceHandles[0].Handle},
	} {
		_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("retrieve_document", c.ID, args))
		if r.Error == nil {
			t.Fatalf("%v was forwarded", args)
		}
	}
	if h.invokeCount() != 0 {
		t.Fatal("the agent saw a refused invocation")
	}
}
