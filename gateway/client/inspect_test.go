package client_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/client"
)

func mintForTest(t *testing.T) string {
	t.Helper()
	ks, err := captoken.GenerateKeySet("EdDSA")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	token, err := captoken.Mint(ks, captoken.Claims{
		Issuer: "https://gw.example.com", Principal: "user:alice@example.com", Holder: "user:alice@example.com",
		Audience: "documents", CapabilityID: "cap_1", Grant: "documents:read", Operations: []string{"retrieve"},
		Handles: []string{"rh_1"}, Expiry: captoken.NewNumericDate(now.Add(time.Hour)),
		IssuedAt: captoken.NewNumericDate(now), RevocationID: "rv_1",
	}, map[string]string{"rh_1": "q1-financial"})
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// TestUnsafeInspectVerifiesNothing documents the danger in the name: a
// token whose signature is garbage still decodes.
func TestUnsafeInspectVerifiesNothing(t *testing.T) {
	token := mintForTest(t)
	forged := token[:strings.LastIndexByte(token, '.')+1] + "AAAA"
	for name, tok := range map[string]string{"genuine": token, "bad signature": forged} {
		c, err := client.UnsafeInspect(tok)
		if err != nil || c.CapabilityID != "cap_1" || c.SealedResources == "" {
			t.Errorf("%s: %+v %v", name, c, err)
		}
		if strings.Contains(c.SealedResources, "q1-financial") {
			t.Errorf("%s: the sealed map shows a real resource id", name)
		}
	}
}

func TestUnsafeInspectRefusesMalformed(t *testing.T) {
	tests := []struct {
		name, token string
		wantErr     error
	}{
		{"empty", "", captoken.ErrMalformed},
		{"two segments", "a.b", captoken.ErrMalformed},
		{"not base64url", "a+b.c.d", captoken.ErrMalformed},
		{"payload not JSON", "eyJhbGciOiJFZERTQSJ9.bm90IGpzb24.c2ln", captoken.ErrMalformed},
		{"too large", strings.Repeat("a", captoken.MaxTokenSize+1), captoken.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := client.UnsafeInspect(tt.token); !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
