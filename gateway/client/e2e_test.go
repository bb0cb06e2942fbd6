package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/client"
)

// world starts the quickstart world for one test.
func world(t *testing.T) *quickstart.World {
	t.Helper()
	w, err := quickstart.Start(context.Background(), quickstart.Options{})
	if err != nil {
		t.Fatalf("quickstart: %v", err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func as(t *testing.T, w *quickstart.World, key string) *client.Client {
	t.Helper()
	c, err := client.New(w.URL, "documents", client.Options{Credential: key, HTTPClient: &http.Client{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// aliceQ1 is alice's capability on the two Q1 reports.
func aliceQ1(t *testing.T, alice *client.Client) client.Capability {
	t.Helper()
	caps, err := alice.Request(context.Background(), client.RequestParams{
		Grants: []string{"documents:read"}, Purpose: "Summarize quarterly reports",
		ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}},
	})
	if err != nil || len(caps) != 1 || len(caps[0].ResourceHandles) != 2 {
		t.Fatalf("request: %v %v", caps, err)
	}
	return caps[0]
}

// TestRefusalsFromTheGateway runs the refusals of README "Capability errors" through the
// client against the real gateway and checks each is refused with the
// sentinel of its reason.
func TestRefusalsFromTheGateway(t *testing.T) {
	ctx := context.Background()
	w := world(t)
	alice, bob := as(t, w, quickstart.AliceKey), as(t, w, quickstart.BobKey)
	read := aliceQ1(t, alice)
	h1, _ := read.Handle("Q1 Financial Summary")
	h2, _ := read.Handle("Q1 Sales Report")
	child, err := alice.Attenuate(ctx, read, client.Constraints{ResourceHandles: []string{h1}, Operations: []string{"retrieve"}})
	if err != nil {
		t.Fatal(err)
	}
	forged := read
	forged.Token = read.Token[:strings.LastIndexByte(read.Token, '.')+1] + "AAAA"
	byIDOnly := client.Capability{ID: read.ID}
	tests := []struct {
		name    string
		call    func() error
		wantErr error
	}{
		{"bob presents alice's capability", func() error { return invoke(bob, read, "retrieve_document", h1) }, client.ErrHolderMismatch},
		{"bob presents alice's id only", func() error { return invoke(bob, byIDOnly, "retrieve_document", h1) }, client.ErrHolderMismatch},
		{"bob revokes alice's capability", func() error { return bob.Revoke(ctx, read) }, client.ErrHolderMismatch},
		{"operation out of scope", func() error { return invoke(alice, read, "update_document", h1) }, client.ErrOperationNotPermitted},
		{"handle outside the child", func() error { return invoke(alice, child, "retrieve_document", h2) }, client.ErrResourceNotPermitted},
		{"made-up handle", func() error { return invoke(alice, read, "retrieve_document", "rh_guess") }, client.ErrResourceNotPermitted},
		{"forged signature with a real id", func() error { return invoke(alice, forged, "retrieve_document", h1) }, client.ErrCapabilityInvalid},
		{"unknown id", func() error { return invoke(alice, client.Capability{ID: "cap_unknown"}, "retrieve_document", h1) }, client.ErrCapabilityInvalid},
		{"widening attenuation", func() error {
			_, err := alice.Attenuate(ctx, child, client.Constraints{Operations: []string{"retrieve", "search"}})
			return err
		}, client.ErrAttenuationNotPermitted},
		{"later expiry", func() error {
			_, err := alice.Attenuate(ctx, child, client.Constraints{Expires: child.Expires.Add(time.Hour)})
			return err
		}, client.ErrAttenuationNotPermitted},
		{"contractor asks for hr", func() error {
			_, err := bob.Request(ctx, client.RequestParams{Grants: []string{"documents:read"}, ResourceQuery: &client.ResourceQuery{Collection: "hr"}})
			return err
		}, client.ErrGrantDenied},
		{"no credential", func() error { return invoke(as(t, w, ""), read, "retrieve_document", h1) }, client.ErrUnauthenticated},
		{"unknown credential", func() error { return invoke(as(t, w, "mallory-key"), read, "retrieve_document", h1) }, client.ErrUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
	if err := invoke(alice, child, "retrieve_document", h1); err != nil {
		t.Errorf("after every refusal, the child still works: %v", err)
	}
}

func invoke(c *client.Client, capb client.Capability, skill, handle string) error {
	_, err := c.Invoke(context.Background(), capb, skill, map[string]any{"resourceHandle": handle})
	return err
}

// TestDelegationToTheSummarizer delegates an attenuated capability to the
// summarizer, which retrieves the document through the gateway with the
// client; once the parent is revoked, it cannot be delegated.
func TestDelegationToTheSummarizer(t *testing.T) {
	ctx := context.Background()
	w := world(t)
	alice := as(t, w, quickstart.AliceKey)
	read := aliceQ1(t, alice)
	h1, _ := read.Handle("Q1 Financial Summary")
	summarizer, err := alice.For("summarizer")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := summarizer.Delegate(ctx, client.Delegation{
		Text: "Summarize this document", Capabilities: []client.Capability{read},
		Attenuations: map[string]client.Constraints{read.ID: {ResourceHandles: []string{h1}, Operations: []string{"retrieve"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if !strings.Contains(text, "Q1 Financial Summary: ") || strings.Contains(text, "Q1 Sales Report") || strings.Contains(text, "refused") {
		t.Errorf("the summarizer's answer: %s", text)
	}
	if strings.Contains(text, read.Token) {
		t.Error("the answer echoes alice's token")
	}
	if err := alice.Revoke(ctx, read); err != nil {
		t.Fatal(err)
	}
	_, err = summarizer.Delegate(ctx, client.Delegation{Text: "again", Capabilities: []client.Capability{read}})
	if !errors.Is(err, client.ErrCapabilityRevoked) {
		t.Errorf("delegating a revoked capability: err = %v, want ErrCapabilityRevoked", err)
	}
}
