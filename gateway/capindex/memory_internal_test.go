package capindex

import (
	"context"
	"encoding/base64"
	"testing"
	"time"
	"unsafe"

	"github.com/capgate/capgate/captoken"
)

// packed is a well-formed token naming id, with the header every token
// of one key shares.
func packed(t *testing.T, id string) captoken.Packed {
	t.Helper()
	p, err := captoken.Pack("eyJhbGciOiJFZERTQSJ9." + b64(`{"cid":"`+id+`"}`) + ".c2ln")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// interned counts what m keeps one copy of: parties, headers, name lists.
func internedCounts(m *Memory) [3]int { return [3]int{m.parties.len(), m.headers.len(), m.names.len()} }

// TestMemoryInterning checks that records share one copy of what they
// have in common, and that the interners forget a value with the last
// record that used it, whether it expired or was replaced.
func TestMemoryInterning(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	put := func(id, principal string, ttl time.Duration) {
		t.Helper()
		err := m.Put(ctx, Record{
			CapabilityID: id, Token: packed(t, id), Principal: principal, Holder: principal, Agent: "documents",
			Grant: "documents:read", DisplayNames: []string{"Q1 " + principal}, IssuedAt: now, Expires: now.Add(ttl),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("cap_1", "user:a", time.Minute)
	put("cap_2", "user:a", time.Hour)
	put("cap_3", "user:b", time.Minute)
	a, b := m.records["cap_1"], m.records["cap_2"]
	if a.parties != b.parties || a.names != b.names || unsafe.StringData(a.token.Header()) != unsafe.StringData(b.token.Header()) {
		t.Error("two records of one principal keep two copies of what they share")
	}
	if got, want := internedCounts(m), [3]int{2, 1, 2}; got != want {
		t.Errorf("interned (parties, headers, names) = %v, want %v", got, want)
	}
	put("cap_2", "user:c", time.Hour) // replaced: user:a is cap_1's alone
	now = now.Add(2 * time.Minute)
	m.mu.Lock()
	m.pruneLocked()
	m.mu.Unlock()
	if got, want := internedCounts(m), [3]int{1, 1, 1}; got != want {
		t.Errorf("after expiry, interned (parties, headers, names) = %v, want %v: cap_2's only", got, want)
	}
	if r, err := m.Get(ctx, "cap_2"); err != nil || m.Len() != 1 || r.DisplayNames[0] != "Q1 user:c" {
		t.Errorf("Get(cap_2) = %+v, %v, %d records", r, err, m.Len())
	}
}

func TestNameListKey(t *testing.T) {
	for _, names := range [][]string{nil, {""}, {"Q1", ""}, {"a\x00b", "Q1 Sales Report", "é"}} {
		key, got := ownNameList(nameListKey(names))
		if key != nameListKey(names) || len(got) != len(names) {
			t.Fatalf("%q: key %q, names %q", names, key, got)
		}
		for i := range names {
			if got[i] != names[i] {
				t.Errorf("%q: name %d = %q", names, i, got[i])
			}
		}
	}
}

// TestMemoryNamesNotShared: a caller writing into the display names of a
// record it got does not change another record's names, though the index
// keeps one copy of a list records share (names are matched to handles
// by position, so a shared write would show another resource's name).
func TestMemoryNamesNotShared(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	for _, id := range []string{"cap_1", "cap_2"} {
		if err := m.Put(ctx, Record{CapabilityID: id, Token: packed(t, id), Principal: "user:a", Holder: "user:a",
			Agent: "documents", Grant: "documents:read", DisplayNames: []string{"Q1", "Q2"}, IssuedAt: now,
			Expires: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := m.Get(ctx, "cap_1")
	a.DisplayNames[0] = "someone else's"
	if b, _ := m.Get(ctx, "cap_2"); b.DisplayNames[0] != "Q1" {
		t.Fatalf("cap_2's names are %q after a write to cap_1's", b.DisplayNames)
	}
}
