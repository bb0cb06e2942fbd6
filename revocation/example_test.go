package revocation_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/revocation"
)

// A capability carries its own revocation id and its ancestors'. Revoking
// an ancestor revokes every descendant; a sibling is unaffected.
func ExampleNewMemory() {
	now := time.Date(2025, 4, 1, 12, 0, 0, 0, time.UTC)
	store := revocation.NewMemory(revocation.MemoryOptions{Now: func() time.Time { return now }})
	defer func() { _ = store.Close() }()
	ctx := context.Background()

	// root was delegated to a summarizer (child), which delegated further
	// (grandchild); root was also delegated to another agent (sibling).
	grandchild := revocation.Query{IDs: []string{"rv_grandchild", "rv_root", "rv_child"}}
	sibling := revocation.Query{IDs: []string{"rv_sibling", "rv_root"}}

	// Keep the id until the longest-lived token that carries it expires.
	if err := store.Revoke(ctx, "rv_child", now.Add(time.Hour)); err != nil {
		fmt.Println("revoke failed:", err)
		return
	}
	for _, q := range []revocation.Query{grandchild, sibling} {
		res, err := store.Check(ctx, q)
		fmt.Printf("%s: revoked=%v by=%q err=%v\n", q.IDs[0], res.Revoked, res.By, err)
	}
	// Output:
	// rv_grandchild: revoked=true by="rv_child" err=<nil>
	// rv_sibling: revoked=false by="" err=<nil>
}

// Revoking a principal cuts off every capability it was issued before the
// cutoff; capabilities issued later are unaffected.
func ExampleMemory_RevokePrincipal() {
	now := time.Date(2025, 4, 1, 12, 0, 0, 0, time.UTC)
	store := revocation.NewMemory(revocation.MemoryOptions{Now: func() time.Time { return now }})
	defer func() { _ = store.Close() }()
	ctx := context.Background()

	const alice = "user:alice@example.com"
	if err := store.RevokePrincipal(ctx, alice, now, now.Add(24*time.Hour)); err != nil {
		fmt.Println("revoke failed:", err)
		return
	}
	for _, issued := range []time.Time{now.Add(-time.Minute), now.Add(time.Minute)} {
		res, _ := store.Check(ctx, revocation.Query{IDs: []string{"rv_a"}, Principal: alice, IssuedAt: issued})
		fmt.Printf("issued %s: revoked=%v by=%q\n", issued.Format(time.Kitchen), res.Revoked, res.By)
	}
	// Output:
	// issued 11:59AM: revoked=true by="principal:user:alice@example.com"
	// issued 12:01PM: revoked=false by=""
}

// The one safe way to read a Check: only (not revoked, no error) allows.
// Any error, whatever it wraps, refuses.
func ExampleStore_check() {
	store := revocation.NewMemory(revocation.MemoryOptions{})
	_ = store.Close() // a closed store cannot answer
	res, err := store.Check(context.Background(), revocation.Query{IDs: []string{"rv_a"}})
	allowed := err == nil && !res.Revoked
	fmt.Println("allowed:", allowed)
	fmt.Println("unavailable:", errors.Is(err, revocation.ErrUnavailable))
	// Output:
	// allowed: false
	// unavailable: true
}
