package console_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/audit/siem"
)

// TestAuditPageFormats: an OCSF trail is shown and verified through the
// canonical event each record carries, and a record whose mapped fields
// were changed is not shown and breaks the chain; a CEF trail is said to
// be CEF, neither shown nor called broken.
func TestAuditPageFormats(t *testing.T) {
	tests := []struct {
		name      string
		format    siem.Format
		tamper    func([]byte) []byte
		first     string // what the file's first line starts with
		want, not []string
	}{
		{"ocsf", siem.OCSF, nil, `{"activity_id"`,
			[]string{"2 events, chain intact", "Events 1–2 of 2", "<code>capability.issue</code>", "quarterly review",
				"<b>principal</b> user:alice@example.com", "<b>holder</b> agent:summarizer", "replica-1 · 2"},
			[]string{"not an event", "broken", "in CEF"}},
		{"ocsf with a mapped field changed", siem.OCSF, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"uid":"user:alice@example.com"`), []byte(`"uid":"user:mallory@example.com"`), 1)
		}, `{"activity_id"`,
			[]string{"chain broken at position 1", "1 line is not an event", "Events 1–1 of 1"},
			[]string{"quarterly review", "mallory"}},
		{"canonical with the second event's seq changed", "", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"seq":2`), []byte(`"seq":3`), 1)
		}, `{"`,
			[]string{"chain broken at position 2, after 1 events verified"},
			[]string{"chain intact"}},
		{"canonical with a line too long to read", "", func(b []byte) []byte {
			return append(b, append(bytes.Repeat([]byte("x"), 1<<20+8), '\n')...)
		}, `{"`,
			[]string{"chain broken at position 3, after 2 events verified", "line longer than", "The audit file cannot be read."},
			[]string{"chain intact"}},
		{"cef", siem.CEF, nil, "CEF:0|capgate",
			[]string{`id="cef"`, "The audit trail is in CEF (audit.format: cef)", "can neither show the trail nor verify its chain"},
			[]string{"broken", "chain intact", "capability.issue", "Events"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{auditFormat: tt.format})
			data, err := os.ReadFile(f.auditFile)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte(tt.first)) {
				t.Fatalf("the trail is not %s: %.80s", tt.format, data)
			}
			if tt.tamper != nil {
				if err := os.WriteFile(f.auditFile, tt.tamper(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			b := newBrowser(t, f)
			b.signIn(adminKey)
			code, page := b.get("/console/audit")
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			pageHas(t, page, tt.want, tt.not)
		})
	}
}

// pageHas checks that page shows every one of want and none of not.
func pageHas(t *testing.T, page string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q:\n%s", w, page)
		}
	}
	for _, n := range not {
		if strings.Contains(page, n) {
			t.Errorf("the page shows %q", n)
		}
	}
}
