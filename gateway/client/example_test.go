package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/client"
)

// The whole capability life cycle against the quickstart world: alice
// requests a capability, invokes a skill with it, attenuates it, revokes
// the parent, and the child is refused.
func Example() {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	alice, err := client.New(w.URL, "documents", client.Options{Credential: quickstart.AliceKey})
	if err != nil {
		fmt.Println(err)
		return
	}
	caps, err := alice.Request(ctx, client.RequestParams{
		Grants:        []string{"documents:read"},
		Purpose:       "Summarize quarterly reports",
		ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	read := caps[0]
	fmt.Println("granted", read.Grant, read.Operations, "on", len(read.ResourceHandles), "documents")

	h, _ := read.Handle("Q1 Financial Summary")
	raw, err := alice.Invoke(ctx, read, "retrieve_document", map[string]any{"resourceHandle": h})
	if err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		Title string `json:"title"`
	}
	_ = json.Unmarshal(raw, &doc)
	fmt.Println("retrieved", doc.Title)

	child, err := alice.Attenuate(ctx, read, client.Constraints{ResourceHandles: []string{h}, Operations: []string{"retrieve"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("attenuated to", child.Operations, "on", len(child.ResourceHandles), "document, parent is", child.ParentID == read.ID)

	if err := alice.Revoke(ctx, read); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("revoked the parent")

	_, err = alice.Invoke(ctx, child, "retrieve_document", map[string]any{"resourceHandle": h})
	fmt.Println("child refused as revoked:", errors.Is(err, client.ErrCapabilityRevoked))
	if rpcErr, ok := errors.AsType[*client.RPCError](err); ok {
		fmt.Println(rpcErr.Code, rpcErr.Reason)
	}
	// Output:
	// granted documents:read [retrieve search list] on 2 documents
	// retrieved Q1 Financial Summary
	// attenuated to [retrieve] on 1 document, parent is true
	// revoked the parent
	// child refused as revoked: true
	// -32043 capability_revoked
}

// A request the policy does not allow is refused with grant_denied: bob is
// a contractor, and contractors never get collection hr.
func ExampleClient_Request_denied() {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	bob, _ := client.New(w.URL, "documents", client.Options{Credential: quickstart.BobKey})
	_, err = bob.Request(ctx, client.RequestParams{
		Grants:        []string{"documents:read"},
		Purpose:       "Look at salaries",
		ResourceQuery: &client.ResourceQuery{Collection: "hr"},
	})
	fmt.Println(errors.Is(err, client.ErrGrantDenied))
	var rpcErr *client.RPCError
	if errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, rpcErr.Reason)
	}
	// Output:
	// true
	// -32047 grant_denied
}

// UnsafeInspect shows what a token claims without verifying it: for
// display and debugging only.
func ExampleUnsafeInspect() {
	ks, err := captoken.GenerateKeySet("EdDSA")
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	token, err := captoken.Mint(ks, captoken.Claims{
		Issuer: "https://capgate.example.com", Principal: "user:alice@example.com",
		Holder: "user:alice@example.com", Audience: "documents", CapabilityID: "cap_example",
		Grant: "documents:read", Operations: []string{"retrieve"}, Handles: []string{"rh_001"},
		Expiry: captoken.NewNumericDate(now.Add(time.Hour)), IssuedAt: captoken.NewNumericDate(now),
		RevocationID: "rv_example", Purpose: "Summarize quarterly reports",
	}, map[string]string{"rh_001": "q1-financial"})
	if err != nil {
		fmt.Println(err)
		return
	}
	claims, err := client.UnsafeInspect(token)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(claims.CapabilityID, claims.Grant, claims.Operations, claims.Handles)
	fmt.Println("holder", claims.Holder, "expires", claims.Expiry.Time().Format(time.RFC3339))
	// Output:
	// cap_example documents:read [retrieve] [rh_001]
	// holder user:alice@example.com expires 2025-01-09T13:00:00Z
}

// Delegation: alice hands the summarizer agent a narrower copy of her
// capability, one document and retrieve only, with the message. The
// gateway mints that child bound to agent:summarizer, which retrieves the
// document through the gateway with this client.
func ExampleClient_Delegate() {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	alice, _ := client.New(w.URL, "documents", client.Options{Credential: quickstart.AliceKey})
	caps, err := alice.Request(ctx, client.RequestParams{
		Grants: []string{"documents:read"}, Purpose: "Summarize quarterly reports",
		ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	read := caps[0]
	h, _ := read.Handle("Q1 Sales Report")

	summarizer, _ := alice.For("summarizer")
	raw, err := summarizer.Delegate(ctx, client.Delegation{
		Text:         "Summarize this report",
		Capabilities: []client.Capability{read},
		Attenuations: map[string]client.Constraints{read.ID: {ResourceHandles: []string{h}, Operations: []string{"retrieve"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var answer struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	_ = json.Unmarshal(raw, &answer)
	fmt.Println(answer.Parts[0].Text)
	// Output:
	// Summaries of 1 delegated document(s):
	// - Q1 Sales Report: Q1 2025 sales closed 148 new accounts, 9% above target, led by the EMEA team.
}
