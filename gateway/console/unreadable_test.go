package console_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
)

// TestCapabilitiesNamesUnreadable: a live capability whose index record
// cannot be read is named in a warning on the capability list, never
// hidden, while the readable ones are still drawn; the revoke page says
// its descendant count may be short.
func TestCapabilitiesNamesUnreadable(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	if _, page := b.get("/console/capabilities"); strings.Contains(page, `id="unreadable"`) {
		t.Fatalf("a warning with every record readable:\n%s", page)
	}
	helper := f.chain[2].CapabilityID
	f.listed.Break(helper)
	code, page := b.get("/console/capabilities")
	if code != http.StatusOK {
		t.Fatalf("status %d\n%s", code, page)
	}
	for _, want := range []string{`id="unreadable"`, "1 capability could not be read", "<code>" + helper + "</code>",
		"agent:summarizer", "2 live capabilities."} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "agent:helper") || strings.Contains(page, "capability?id="+helper) {
		t.Errorf("the unreadable record is drawn as if read:\n%s", page)
	}
	_, page = b.get("/console/revoke?id=" + f.chain[0].CapabilityID)
	for _, want := range []string{"also revokes at least 1 live descendant.", "1 of this principal's capabilities could not be read"} {
		if !strings.Contains(page, want) {
			t.Errorf("the revoke page lacks %q:\n%s", want, page)
		}
	}
}

// TestCapabilitiesNamesManyUnreadable: past the number of ids one page
// names, the warning counts every unreadable record and says how many it
// does not name.
func TestCapabilitiesNamesManyUnreadable(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	now := time.Now()
	for i := range 120 {
		id := fmt.Sprintf("cap_broken_%03d", i)
		if err := f.index.Put(context.Background(), capindex.Record{CapabilityID: id, Token: capindextest.Token(t, id),
			Principal: "user:bob@example.com", Holder: "user:bob@example.com", Agent: "documents", Grant: "documents:read",
			IssuedAt: now, Expires: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		f.listed.Break(id)
	}
	b := newBrowser(t, f)
	b.signIn(adminKey)
	_, page := b.get("/console/capabilities")
	for _, want := range []string{"120 capabilities could not be read", "cap_broken_000", "cap_broken_099", "and 20 more.", "3 live capabilities."} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "cap_broken_100") {
		t.Error("the warning names more ids than one page shows")
	}
}

// TestCapabilitiesIndexErrorNamingRecords: a listing error that names
// unreadable records but is, or joins, anything else (ErrUnavailable
// above all) fails the capability list and the revoke page, though the
// index returned records with it: neither draws them nor the warning.
// Only an error that says nothing else is a partial answer.
func TestCapabilitiesIndexErrorNamingRecords(t *testing.T) {
	down := fmt.Errorf("%w: connection refused", capindex.ErrUnavailable)
	named := &capindex.UnreadableError{IDs: []string{"cap_named"}}
	tests := []struct {
		name       string
		err        error
		wantStatus int
	}{
		{name: "unavailable", err: down, wantStatus: http.StatusServiceUnavailable},
		{name: "unavailable joined with unreadable", err: errors.Join(named, down), wantStatus: http.StatusServiceUnavailable},
		{name: "unavailable wrapping unreadable", err: fmt.Errorf("%w: %w", capindex.ErrUnavailable, named),
			wantStatus: http.StatusServiceUnavailable},
		{name: "unreadable joined with another error", err: errors.Join(named, errors.New("boom")),
			wantStatus: http.StatusServiceUnavailable},
		{name: "wrapped unreadable", err: fmt.Errorf("listing: %w", named), wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			f.listed.FailListings(tt.err)
			b := newBrowser(t, f)
			b.signIn(adminKey)
			code, page := b.get("/console/capabilities")
			if code != tt.wantStatus {
				t.Fatalf("list: status %d, want %d\n%s", code, tt.wantStatus, page)
			}
			partial := tt.wantStatus == http.StatusOK
			drawn := strings.Contains(page, "capability?id="+f.chain[0].CapabilityID)
			warned := strings.Contains(page, `id="unreadable"`) && strings.Contains(page, "<code>cap_named</code>")
			failed := strings.Contains(page, "The capability index is unavailable.")
			if drawn != partial || warned != partial || failed == partial {
				t.Errorf("list: drawn %v, warned %v, failed %v; want a partial answer %v:\n%s", drawn, warned, failed, partial, page)
			}
			if code, page := b.get("/console/revoke?id=" + f.chain[0].CapabilityID); code != tt.wantStatus {
				t.Errorf("revoke page: status %d, want %d\n%s", code, tt.wantStatus, page)
			}
		})
	}
}

// TestUnreadableWording: one unreadable capability is spoken of in the
// singular, and a capability whose only descendant could not be read is
// not said to have "at least 0" of them.
func TestUnreadableWording(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	f.listed.Break(f.chain[2].CapabilityID)
	_, page := b.get("/console/capabilities")
	if !strings.Contains(page, "It may still be live and is not drawn below:") || strings.Contains(page, "They may") {
		t.Errorf("the warning for one capability is not in the singular:\n%s", page)
	}
	_, page = b.get("/console/capabilities?agent=documents")
	if !strings.Contains(page, "is named whatever the filter:") {
		t.Errorf("the filtered list does not say the unreadable one is named whatever the filter:\n%s", page)
	}
	_, page = b.get("/console/revoke?id=" + f.chain[1].CapabilityID)
	if strings.Contains(page, "at least 0") || !strings.Contains(page, "No live descendant of it was found, but the count may be short") {
		t.Errorf("the revoke page of a capability whose descendant is unreadable:\n%s", page)
	}
}
