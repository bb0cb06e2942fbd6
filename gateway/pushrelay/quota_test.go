package pushrelay_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/pushrelay"
	"github.com/capgate/capgate/revocation/redistest"
)

// ownedRecord is a new record of owner on agent.
func ownedRecord(t *testing.T, agent, owner string) pushrelay.Record {
	t.Helper()
	r, _ := newRecord(t, agent, "")
	r.Owner = owner
	return r
}

// boundedStores are both backends with a bound of perOwner records per
// principal; the Redis one under its own prefix on srv.
func boundedStores(t *testing.T, srv *redistest.Server, prefix string, perOwner int) map[string]pushrelay.Store {
	t.Helper()
	mem, err := pushrelay.NewMemory(testKey, 1000, perOwner, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	red, err := pushrelay.NewRedis(srv.Client, prefix, time.Hour, time.Second, perOwner, testKey)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]pushrelay.Store{"memory": mem, "redis": red}
}

// TestPrincipalBound: a principal holds at most its bound of relayed
// configs, on every agent together; others are not affected, an update of
// a config it holds is not a new one, and a deleted config frees its
// place. A refused config is not stored.
func TestPrincipalBound(t *testing.T) {
	const alice, bob = "user:alice", "user:bob"
	tests := []struct {
		name    string
		prepare func(t *testing.T, st pushrelay.Store, held []pushrelay.Record)
		put     func(t *testing.T, held []pushrelay.Record) pushrelay.Record
		wantErr error
	}{
		{"another config at the bound", nil,
			func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "notes", alice) }, pushrelay.ErrPrincipalFull},
		{"on another agent at the bound", nil,
			func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "docs", alice) }, pushrelay.ErrPrincipalFull},
		{"another principal", nil,
			func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "notes", bob) }, nil},
		{"a principal whose name extends the first's", nil,
			func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "notes", alice+":x") }, nil},
		{"a principal whose name differs in case", nil,
			func(t *testing.T, _ []pushrelay.Record) pushrelay.Record {
				return ownedRecord(t, "notes", "user:Alice")
			}, nil},
		{"an update of a held config", nil,
			func(t *testing.T, held []pushrelay.Record) pushrelay.Record { r := held[0]; r.Task = "t1"; return r }, nil},
		{"after a delete", func(t *testing.T, st pushrelay.Store, held []pushrelay.Record) {
			if err := st.Delete(context.Background(), held[1]); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "notes", alice) }, nil},
		{"after another principal's delete", func(t *testing.T, st pushrelay.Store, _ []pushrelay.Record) {
			r := ownedRecord(t, "notes", bob)
			if err := st.Put(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if err := st.Delete(context.Background(), r); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "notes", alice) }, pushrelay.ErrPrincipalFull},
		{"a config of the first principal's id on another agent, deleted", func(t *testing.T, st pushrelay.Store, held []pushrelay.Record) {
			other := held[0]
			other.Agent = "docs" // no such record: frees nothing
			if err := st.Delete(context.Background(), other); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, _ []pushrelay.Record) pushrelay.Record { return ownedRecord(t, "notes", alice) }, pushrelay.ErrPrincipalFull},
	}
	srv := redistest.Start(t)
	for i, tt := range tests {
		for name, st := range boundedStores(t, srv, fmt.Sprintf("q%d:", i), 2) {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				held := []pushrelay.Record{ownedRecord(t, "notes", alice), ownedRecord(t, "docs", alice)}
				for _, r := range held {
					if err := st.Put(ctx, r); err != nil {
						t.Fatal(err)
					}
				}
				if tt.prepare != nil {
					tt.prepare(t, st, held)
				}
				r := tt.put(t, held)
				err := st.Put(ctx, r)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Put = %v, want %v", err, tt.wantErr)
				}
				if tt.wantErr == nil {
					return
				}
				var full *pushrelay.PrincipalFullError
				if !errors.As(err, &full) || full.Limit != 2 || full.Owner != r.Owner {
					t.Errorf("refusal %#v names no limit", err)
				}
				if _, err := st.Get(ctx, r.Agent, r.ID); !errors.Is(err, pushrelay.ErrNotFound) {
					t.Errorf("the refused config was stored: %v", err)
				}
			})
		}
	}
}

// TestPrincipalBoundExpiry: a config that expired no longer counts
// against its principal, in memory and on Redis.
func TestPrincipalBoundExpiry(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	mem, err := pushrelay.NewMemory(testKey, 1000, 1, time.Minute, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t)
	// Records live 200ms; a place outlasts its record by the call timeout.
	red, err := pushrelay.NewRedis(srv.Client, "t:", 200*time.Millisecond, 100*time.Millisecond, 1, testKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		st   pushrelay.Store
		wait func()
	}{
		"memory": {mem, func() { now = now.Add(2 * time.Minute) }},
		"redis":  {red, func() { time.Sleep(400 * time.Millisecond) }},
	} {
		t.Run(name, func(t *testing.T) {
			if err := tc.st.Put(ctx, ownedRecord(t, "notes", "user:alice")); err != nil {
				t.Fatal(err)
			}
			r := ownedRecord(t, "notes", "user:alice")
			if err := tc.st.Put(ctx, r); !errors.Is(err, pushrelay.ErrPrincipalFull) {
				t.Fatalf("before expiry: %v, want ErrPrincipalFull", err)
			}
			tc.wait()
			if err := tc.st.Put(ctx, r); err != nil {
				t.Errorf("after expiry: %v", err)
			}
		})
	}
}

// TestPrincipalBoundConcurrent: principals setting configs at once,
// through one store in memory or through two replicas on one Redis,
// never hold more than the bound together.
func TestPrincipalBoundConcurrent(t *testing.T) {
	const bound, tries = 5, 40
	srv := redistest.Start(t)
	mem, err := pushrelay.NewMemory(testKey, 1000, bound, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	replicas := func(t *testing.T) []pushrelay.Store {
		var out []pushrelay.Store
		for range 2 {
			st, err := pushrelay.NewRedis(srv.NewClient(nil), "t:", time.Hour, time.Second, bound, testKey)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, st)
		}
		return out
	}
	for name, sts := range map[string][]pushrelay.Store{"memory": {mem, mem}, "redis replicas": replicas(t)} {
		t.Run(name, func(t *testing.T) {
			stored := putConcurrently(t, sts, tries)
			if len(stored) != bound {
				t.Fatalf("%d configs stored, want %d", len(stored), bound)
			}
			for _, r := range stored {
				if _, err := sts[0].Get(context.Background(), r.Agent, r.ID); err != nil {
					t.Errorf("a stored config is missing: %v", err)
				}
			}
		})
	}
	keys, err := srv.Client.Keys(context.Background(), "t:push:*").Result()
	if err != nil || len(keys) != bound {
		t.Errorf("Redis holds %d records (%v), want %d", len(keys), err, bound)
	}
}

// putConcurrently puts new configs of one principal through each store
// from several goroutines at once, tries in all, and returns those
// stored; every other must be refused for the bound.
func putConcurrently(t *testing.T, sts []pushrelay.Store, tries int) []pushrelay.Record {
	t.Helper()
	const workers = 8
	var (
		mu     sync.Mutex
		stored []pushrelay.Record
		wg     sync.WaitGroup
	)
	start := make(chan struct{})
	for i := range workers {
		st := sts[i%len(sts)]
		recs := make([]pushrelay.Record, tries/workers)
		for j := range recs {
			recs[j] = ownedRecord(t, "notes", "user:mallory")
		}
		wg.Go(func() {
			<-start
			for _, r := range recs {
				err := st.Put(context.Background(), r)
				mu.Lock()
				switch {
				case err == nil:
					stored = append(stored, r)
				case !errors.Is(err, pushrelay.ErrPrincipalFull):
					t.Errorf("Put: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	return stored
}
