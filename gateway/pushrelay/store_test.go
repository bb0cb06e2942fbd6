package pushrelay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/pushrelay"
	"github.com/capgate/capgate/revocation/redistest"
)

var testKey = bytes.Repeat([]byte{7}, 32)

func newRecord(t *testing.T, agent, task string) (pushrelay.Record, string) {
	t.Helper()
	r, secret, err := pushrelay.NewRecord(pushrelay.Record{Agent: agent, Owner: "user:alice", Task: task,
		Target: pushrelay.Target{URL: "https://h.example/hook", Token: "caller-token",
			Auth: &pushrelay.Auth{Schemes: []string{"Bearer"}, Credentials: "caller-secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	return r, secret
}

// stores are the two backends, one each: in memory, and on a throwaway
// redis-server (with the raw client, to tamper with what it holds).
func stores(t *testing.T) map[string]pushrelay.Store {
	t.Helper()
	mem, err := pushrelay.NewMemory(testKey, 10, 10, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t)
	red, err := pushrelay.NewRedis(srv.Client, "t:", time.Hour, time.Second, 10, testKey)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]pushrelay.Store{"memory": mem, "redis": red}
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r, secret := newRecord(t, "notes", "")
			if err := st.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
			got, err := st.Get(ctx, "notes", r.ID)
			if err != nil || got.Target.Token != "caller-token" || got.Target.Auth.Credentials != "caller-secret" {
				t.Fatalf("Get = %+v, %v", got, err)
			}
			if !got.Authentic(secret) || got.Authentic("other") || got.Authentic("") {
				t.Error("Authentic does not tell the secret apart")
			}
			if _, err := st.Get(ctx, "other-agent", r.ID); !errors.Is(err, pushrelay.ErrNotFound) {
				t.Errorf("another agent's id: %v", err)
			}
			// Bound to its task on the first push, it is listed with it.
			r.Task = "t1"
			if err := st.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
			list, err := st.ByTask(ctx, "notes", "t1")
			if err != nil || len(list) != 1 || list[0].ID != r.ID {
				t.Fatalf("ByTask = %+v, %v", list, err)
			}
			if err := st.Delete(ctx, r); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Get(ctx, "notes", r.ID); !errors.Is(err, pushrelay.ErrNotFound) {
				t.Errorf("after Delete: %v", err)
			}
			if list, err := st.ByTask(ctx, "notes", "t1"); err != nil || len(list) != 0 {
				t.Errorf("ByTask after Delete = %+v, %v", list, err)
			}
		})
	}
}

// TestRedisRecordsSealed: Redis holds neither the caller's credentials
// nor the secret in the clear; a record written or moved by anyone but a
// gateway, or sealed under another key, is refused, as is a store that
// does not answer.
func TestRedisRecordsSealed(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	st, err := pushrelay.NewRedis(srv.Client, "t:", time.Hour, time.Second, 10, testKey)
	if err != nil {
		t.Fatal(err)
	}
	r1, secret := newRecord(t, "notes", "t1")
	r2, _ := newRecord(t, "notes", "t1")
	for _, r := range []pushrelay.Record{r1, r2} {
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := srv.Client.Get(ctx, "t:push:notes:"+r1.ID).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"caller-token", "caller-secret", "h.example", secret} {
		if bytes.Contains(raw, []byte(clear)) {
			t.Errorf("Redis holds %q in the clear", clear)
		}
	}
	other, _ := pushrelay.NewRedis(srv.Client, "t:", time.Hour, time.Second, 10, bytes.Repeat([]byte{8}, 32))
	if _, err := other.Get(ctx, "notes", r1.ID); !errors.Is(err, pushrelay.ErrForged) {
		t.Errorf("another key: %v", err)
	}
	srv.Client.Set(ctx, "t:push:notes:"+r2.ID, raw, 0) // r1's record under r2's id
	if _, err := st.Get(ctx, "notes", r2.ID); !errors.Is(err, pushrelay.ErrForged) || !errors.Is(err, pushrelay.ErrUnavailable) {
		t.Errorf("moved record: %v", err)
	}
	if _, err := st.ByTask(ctx, "notes", "t1"); !errors.Is(err, pushrelay.ErrForged) {
		t.Errorf("listing with a moved record: %v", err)
	}
	srv.Kill()
	if _, err := st.Get(ctx, "notes", r1.ID); !errors.Is(err, pushrelay.ErrUnavailable) || errors.Is(err, pushrelay.ErrNotFound) {
		t.Errorf("store down: %v", err)
	}
	if err := st.Put(ctx, r1); !errors.Is(err, pushrelay.ErrUnavailable) {
		t.Errorf("Put with the store down: %v", err)
	}
}

func TestMemoryBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	st, err := pushrelay.NewMemory(testKey, 2, 10, time.Minute, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 2 {
		r, _ := newRecord(t, "notes", "")
		if err := st.Put(ctx, r); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	r, _ := newRecord(t, "notes", "")
	if err := st.Put(ctx, r); !errors.Is(err, pushrelay.ErrFull) {
		t.Errorf("third record: %v, want ErrFull", err)
	}
	now = now.Add(2 * time.Minute) // the first two expired
	if err := st.Put(ctx, r); err != nil {
		t.Errorf("after expiry: %v", err)
	}
	if _, err := pushrelay.NewMemory([]byte("short"), 2, 10, time.Minute, time.Now); err == nil {
		t.Error("a short key was accepted")
	}
}

// TestRedisListingUnreadable: a task's listing in which one record is
// gone and another cannot be read fails closed, rather than leaving the
// unreadable one out (a delete would then miss it).
func TestRedisListingUnreadable(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	st, err := pushrelay.NewRedis(srv.Client, "t:", time.Hour, time.Second, 10, testKey)
	if err != nil {
		t.Fatal(err)
	}
	// Many ids whose records are gone, so that one of them, not the
	// unreadable record, is almost surely the first Redis lists.
	gone := make([]any, 100)
	for i := range gone {
		gone[i] = fmt.Sprintf("pr_gone%d", i)
	}
	if err := srv.Client.SAdd(ctx, "t:pushtask:notes:t1", gone...).Err(); err != nil {
		t.Fatal(err)
	}
	r, _ := newRecord(t, "notes", "t1")
	if err := st.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	srv.Client.Del(ctx, "t:push:notes:"+r.ID)
	srv.Client.RPush(ctx, "t:push:notes:"+r.ID, "not a record") // GET answers WRONGTYPE
	if list, err := st.ByTask(ctx, "notes", "t1"); !errors.Is(err, pushrelay.ErrUnavailable) {
		t.Errorf("ByTask = %+v, %v; want ErrUnavailable", list, err)
	}
}
