package approval_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestRecordEncoding pins the JSON of a request, as stored (sealed: the MAC
// is computed over this encoding) and as shown (Public). A change here
// makes every record stored by an earlier gateway fail its MAC, so the
// golden file must not change.
func TestRecordEncoding(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	r := approval.Request{
		ID: "apr_abc", Status: approval.StatusApproved, Principal: "user:alice@example.com", Agent: "documents",
		Purpose: "quarterly review", Query: &policy.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}},
		PolicyRevision: "rev-7", Wait: time.Hour, CreatedAt: at, Deadline: at.Add(time.Hour),
		DecidedBy: "user:bob@example.com", DecidedAt: at.Add(time.Minute), Reason: "ok", MAC: "mac",
		Grants: []approval.Grant{{
			Grant: "documents:read", Rule: "finance-read", Operations: []string{"read"}, TTL: time.Hour, MaxDepth: 1, Attenuable: true,
			Resources: []policy.Resource{
				{ID: "reports/q1", DisplayName: "Q1 report", Collection: "reports", Attributes: map[string]string{"quarter": "2025-Q1"}},
				{DisplayName: "bare"},
			},
			Approvers: &policy.Approvers{IDs: []string{"user:bob@example.com"}, Groups: []string{"finance"}},
		}, {Grant: "documents:list", Rule: "finance-read", Operations: []string{"list"}}},
	}
	var got bytes.Buffer
	for _, v := range []approval.Request{r, r.Public()} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(append(b, '\n'))
	}
	golden(t, "record.golden", got.Bytes())
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed:\n got %s\nwant %s", name, got, want)
	}
}
