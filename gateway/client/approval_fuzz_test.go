package client

import (
	"errors"
	"testing"
)

// FuzzIssuedOrPending: whatever result a gateway answers a request with,
// issuedOrPending returns exactly one of checked capabilities, a
// *PendingError with an id, or ErrMalformedResponse; it never panics.
func FuzzIssuedOrPending(f *testing.F) {
	for _, seed := range []string{
		`{"capabilities":[{"id":"cap_1","token":"t","grant":"g","resourceHandles":[],"operations":[],"expires":"2025-01-09T13:00:00Z"}]}`,
		`{"status":"pending","approvalId":"apr_1","expires":"2025-01-09T13:00:00Z"}`,
		`{"status":"pending"}`, `{"status":"approved"}`, `{"capabilities":[]}`, `{"capabilities":[{}]}`,
		`{"status":"pending","approvalId":"apr_1","capabilities":[{"id":"cap_1","token":"t"}]}`,
		`null`, `[]`, `{"expires":"soon"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		caps, err := issuedOrPending(raw)
		if pe, ok := errors.AsType[*PendingError](err); ok {
			if pe.ApprovalID == "" || caps != nil {
				t.Fatalf("pending %+v with capabilities %v", pe, caps)
			}
			return
		}
		switch {
		case err == nil:
			for _, c := range caps {
				if c.ID == "" || c.Token == "" {
					t.Fatalf("unchecked capability %v", c)
				}
			}
			if len(caps) == 0 {
				t.Fatal("no capability and no error")
			}
		case !errors.Is(err, ErrMalformedResponse):
			t.Fatalf("error %v is not ErrMalformedResponse", err)
		}
	})
}
