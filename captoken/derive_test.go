package captoken_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
)

func TestDeriveKey(t *testing.T) {
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ks.DeriveKey("one use")
	if err != nil || len(a) != captoken.DerivedKeySize {
		t.Fatalf("DeriveKey = %x, %v", a, err)
	}
	if b, _ := ks.DeriveKey("another use"); bytes.Equal(a, b) {
		t.Error("two labels derived the same key")
	}
	if err := ks.Rotate(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if b, _ := ks.DeriveKey("one use"); !bytes.Equal(a, b) {
		t.Error("rotation changed the derived key")
	}
	other, _ := captoken.GenerateKeySet(jose.EdDSA)
	if b, _ := other.DeriveKey("one use"); bytes.Equal(a, b) {
		t.Error("two key sets derived the same key")
	}
	if _, err := ks.DeriveKey(""); !errors.Is(err, captoken.ErrKeySet) {
		t.Errorf("empty label: %v", err)
	}
	if _, err := new(captoken.KeySet).DeriveKey("x"); !errors.Is(err, captoken.ErrKeySet) {
		t.Errorf("empty set: %v", err)
	}
}
