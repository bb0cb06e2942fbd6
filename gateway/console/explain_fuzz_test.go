package console

import (
	"errors"
	"net/url"
	"testing"
	"time"
)

// FuzzExplainForm: whatever query the policy page's explain form gets,
// reading it never panics, and a form it refuses fails with
// errExplainForm, which the page shows as a form error.
func FuzzExplainForm(f *testing.F) {
	for _, s := range []string{
		"principal=user:a&agent=documents&grants=documents:read&operations=retrieve,list&filters=quarter%3D2025-Q1&expires=30m",
		"principal=user:a&host=lab&capabilities=tools,+memory&now=2026-01-02T15:04:05Z",
		"principal=user:a&claims=dept%3D&expires=-5m&agent=x&grants=y",
		"principal=&filters==x",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		form := readExplainForm(q)
		who, at, err := form.principal(now)
		if err != nil {
			if !errors.Is(err, errExplainForm) {
				t.Fatalf("principal: %v is not a form error", err)
			}
			return
		}
		if who.ID == "" {
			t.Fatal("a principal without id was accepted")
		}
		in, err := form.input(who, at)
		if err != nil && !errors.Is(err, errExplainForm) {
			t.Fatalf("input: %v is not a form error", err)
		}
		if err == nil && (in.Agent == "" || len(in.Grants) == 0 || (!in.Expires.IsZero() && !in.Expires.After(time.Time{}))) {
			t.Fatalf("an incomplete request was accepted: %+v", in)
		}
	})
}
