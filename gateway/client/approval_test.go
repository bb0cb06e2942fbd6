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
	"github.com/capgate/capgate/gateway/sep"
)

// hrWrite is the quickstart request that waits for group security.
var hrWrite = client.RequestParams{
	Grants: []string{"documents:read", "documents:write"}, Purpose: "Update the 2025 salary bands",
	ResourceQuery: &client.ResourceQuery{Collection: "hr"},
}

// approveAs decides approval id on the world's admin listener as key.
func approveAs(t *testing.T, w *quickstart.World, key, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, w.AdminURL+"/admin/approvals/"+id+"/approve", strings.NewReader(`{"reason":"SEC-7"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approve: HTTP %d", resp.StatusCode)
	}
}

// TestApprovalThroughTheClient follows carol's HR write with the client:
// Request answers a *PendingError, ApprovalStatus follows it, Redeem
// collects the capabilities once; alice cannot read carol's status.
func TestApprovalThroughTheClient(t *testing.T) {
	ctx := context.Background()
	w := world(t)
	carol, alice := as(t, w, quickstart.CarolKey), as(t, w, quickstart.AliceKey)
	_, err := carol.Request(ctx, hrWrite)
	var pending *client.PendingError
	if !errors.As(err, &pending) || !errors.Is(err, client.ErrApprovalPending) || !strings.HasPrefix(pending.ApprovalID, "apr_") || pending.Expires.IsZero() {
		t.Fatalf("Request = %v, want a *PendingError", err)
	}
	id := pending.ApprovalID
	if st, err := carol.ApprovalStatus(ctx, id); err != nil || st.Status != sep.ApprovalPending || !st.Expires.Equal(pending.Expires) {
		t.Fatalf("status %+v %v", st, err)
	}
	if _, err := carol.Redeem(ctx, id); !errors.Is(err, client.ErrApprovalPending) {
		t.Fatalf("Redeem while pending = %v", err)
	}
	if _, err := alice.ApprovalStatus(ctx, id); !errors.Is(err, client.ErrInvalidParams) {
		t.Fatalf("alice reading carol's status = %v, want ErrInvalidParams", err)
	}
	approveAs(t, w, quickstart.DaveKey, id)
	if st, err := carol.ApprovalStatus(ctx, id); err != nil || st.Status != sep.ApprovalApproved || st.Reason != "SEC-7" {
		t.Fatalf("status after approval %+v %v", st, err)
	}
	caps, err := carol.Redeem(ctx, id)
	if err != nil || len(caps) != 2 || caps[1].Grant != "documents:write" {
		t.Fatalf("Redeem = %v %v", caps, err)
	}
	if _, err := carol.Redeem(ctx, id); !errors.Is(err, client.ErrGrantDenied) {
		t.Fatalf("second Redeem = %v, want ErrGrantDenied", err)
	}
	if st, err := carol.ApprovalStatus(ctx, id); err != nil || st.Status != sep.ApprovalRedeemed {
		t.Fatalf("status after redemption %+v %v", st, err)
	}
}

// TestApprovalAnswersMalformed: a pending answer without an id, and a
// status for another id or without a status, are malformed; empty ids
// are refused before anything is sent.
func TestApprovalAnswersMalformed(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		answer any
		call   func(*client.Client) error
	}{
		"pending without an id": {map[string]any{"status": "pending", "expires": "2025-01-09T13:00:00Z"},
			func(c *client.Client) error { _, err := c.Request(ctx, hrWrite); return err }},
		"status of another id": {map[string]any{"status": "approved", "approvalId": "apr_other", "expires": "2025-01-09T13:00:00Z"},
			func(c *client.Client) error { _, err := c.ApprovalStatus(ctx, "apr_mine"); return err }},
		"status without a status": {map[string]any{"approvalId": "apr_mine", "expires": "2025-01-09T13:00:00Z"},
			func(c *client.Client) error { _, err := c.ApprovalStatus(ctx, "apr_mine"); return err }},
	} {
		t.Run(name, func(t *testing.T) {
			g := newFakeGateway(t, result(tc.answer))
			if err := tc.call(newClient(t, g.srv.URL, client.Options{Credential: "k", HTTPClient: &http.Client{Timeout: 5 * time.Second}})); !errors.Is(err, client.ErrMalformedResponse) {
				t.Fatalf("err = %v, want ErrMalformedResponse", err)
			}
		})
	}
	g := newFakeGateway(t, result(map[string]any{}))
	c := newClient(t, g.srv.URL, client.Options{Credential: "k"})
	if _, err := c.ApprovalStatus(ctx, ""); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("ApprovalStatus(\"\") = %v", err)
	}
	if _, err := c.Redeem(ctx, ""); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Redeem(\"\") = %v", err)
	}
	if n := len(g.requests()); n != 0 {
		t.Errorf("empty ids sent %d requests", n)
	}
}
