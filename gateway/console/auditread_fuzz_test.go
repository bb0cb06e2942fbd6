package console

import (
	"bytes"
	"net/url"
	"testing"
)

// FuzzAuditTrail: whatever the audit file and the filter hold, reading
// the page never panics, shows at most a page, never counts more shown
// events than matched ones, and names capability ids only once each.
func FuzzAuditTrail(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-02T03:04:05Z","event":"admin.revoke","chain":"c","seq":1,"admin":"user:a",`+
		`"request":{"capabilityId":"cap_1"},"result":{"capabilityId":"cap_1","revocationId":"rv"}}`+"\n"), "event=admin")
	f.Add([]byte(`{"event":"capability.issue","capability_ids":["cap_1","cap_1",3]}`+"\n\nnot json\n{}"), "capability=cap_1&page=1")
	f.Add([]byte(`{"event":"admin.revoke","request":{"principal":"user:b","before":"x"}}`), "from=2026-01-02&to=2026-01-03T00:00")
	f.Fuzz(func(t *testing.T, trail []byte, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		filter, err := readAuditFilter(q)
		if err != nil {
			return
		}
		filter.Page = min(filter.Page, 3)
		page, _, err := readAudit(bytes.NewReader(trail), filter, nil)
		if err != nil {
			return
		}
		if len(page.Events) > auditPageSize || len(page.Events) > page.Matched {
			t.Fatalf("%d events shown of %d matched", len(page.Events), page.Matched)
		}
		for _, ev := range page.Events {
			seen := map[string]bool{}
			for _, id := range ev.Capabilities {
				if seen[id] || id == "" {
					t.Fatalf("capability id %q named twice or empty", id)
				}
				seen[id] = true
			}
		}
	})
}
