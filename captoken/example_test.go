package captoken_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/go-jose/go-jose/v4"
)

// exampleSetup returns a key set, a verifier whose clock reads now, and a
// root capability like the one the SEP's example issues.
func exampleSetup(now time.Time) (*captoken.KeySet, *captoken.Verifier, captoken.Claims) {
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		panic(err)
	}
	v, err := captoken.NewVerifier(ks, captoken.VerifierConfig{
		Issuer:     "https://capgate.example",
		Algorithms: []jose.SignatureAlgorithm{jose.EdDSA},
		Now:        func() time.Time { return now },
	})
	if err != nil {
		panic(err)
	}
	c := captoken.Claims{
		Issuer:       "https://capgate.example",
		Principal:    "user:alice@example.com",
		Holder:       "user:alice@example.com",
		Audience:     "documents",
		CapabilityID: captoken.NewCapabilityID(),
		RevocationID: captoken.NewRevocationID(),
		Grant:        "documents:read",
		Operations:   []string{"retrieve", "search"},
		Handles:      []string{"rh_001", "rh_002"},
		IssuedAt:     captoken.NewNumericDate(now),
		Expiry:       captoken.NewNumericDate(now.Add(time.Hour)),
		MaxDepth:     2,
		Attenuable:   true,
		Purpose:      "Summarize quarterly reports",
	}
	return ks, v, c
}

func ExampleMint() {
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	ks, _, c := exampleSetup(now)
	token, err := captoken.Mint(ks, c, map[string]string{
		"rh_001": "reports/q1-financial",
		"rh_002": "reports/q1-sales",
	})
	if err != nil {
		panic(err)
	}
	// The holder can read the claims, but not the real resource ids.
	claims, header, _ := captoken.UnsafeClaimsWithoutVerification(token)
	fmt.Println(header.Type, header.Algorithm, header.KeyID == ks.ActiveKeyID())
	fmt.Println(claims.Operations, claims.Handles)
	// Output:
	// cap+jwt EdDSA true
	// [retrieve search] [rh_001 rh_002]
}

func ExampleVerifier_Verify() {
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	ks, v, c := exampleSetup(now)
	token, _ := captoken.Mint(ks, c, map[string]string{"rh_001": "reports/q1-financial", "rh_002": "reports/q1-sales"})

	claims, err := v.Verify(context.Background(), token, captoken.Expected{Audience: "documents"})
	if err != nil {
		panic(err)
	}
	// Revocation is the caller's job, on every use, for every id.
	fmt.Println(len(claims.RevocationIDs()), claims.HasOperation("retrieve"), claims.HasOperation("delete"))
	id, _ := v.ResourceID(claims, "rh_001")
	fmt.Println(id)

	_, err = v.Verify(context.Background(), token, captoken.Expected{Audience: "summarizer"})
	fmt.Println(errors.Is(err, captoken.ErrWrongAudience), errors.Is(err, captoken.ErrInvalid))
	_, err = v.Verify(context.Background(), token+"x", captoken.Expected{})
	fmt.Println(errors.Is(err, captoken.ErrInvalid))
	// Output:
	// 1 true false
	// reports/q1-financial
	// true true
	// true
}

func ExampleAttenuate() {
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	ks, v, c := exampleSetup(now)
	token, _ := captoken.Mint(ks, c, map[string]string{"rh_001": "reports/q1-financial", "rh_002": "reports/q1-sales"})
	parent, _ := v.Verify(context.Background(), token, captoken.Expected{})

	_, child, err := captoken.Attenuate(ks, v, parent, captoken.Constraints{
		Operations: []string{"retrieve"},
		Handles:    []string{"rh_001"},
		Expires:    now.Add(30 * time.Minute),
	}, captoken.AttenuateOptions{Holder: "agent:summarizer", MaxDepth: 2, Now: now})
	if err != nil {
		panic(err)
	}
	fmt.Println(child.Holder, child.Operations, child.Handles, child.Depth)
	fmt.Println(child.ParentCapabilityID == parent.CapabilityID, child.Ancestors[0] == parent.RevocationID)

	_, _, err = captoken.Attenuate(ks, v, parent, captoken.Constraints{Operations: []string{"delete"}},
		captoken.AttenuateOptions{Now: now})
	fmt.Println(errors.Is(err, captoken.ErrNotSubset), err)
	// Output:
	// agent:summarizer [retrieve] [rh_001] 1
	// true true
	// true captoken: attenuation is not a subset of the parent: operations: "delete" is not in the parent
}
