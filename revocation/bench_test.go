package revocation

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
)

// benchIDs is how many revocations the hot-path benchmarks hold.
const benchIDs = 1_000_000

// benchID returns the i-th realistic revocation id: "rv_" + 22 base64url
// characters, as captoken makes them.
func benchID(i int) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[8:], uint64(i)*0x9E3779B97F4A7C15)
	binary.BigEndian.PutUint64(b[:8], uint64(i))
	return "rv_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchQueries are a valid capability three links deep (the common case,
// nothing revoked) and one whose own id is revoked.
func benchQueries() (miss, hit Query) {
	miss = Query{IDs: []string{"rv_not_revoked_leaf___", "rv_not_revoked_mid____", "rv_not_revoked_root___"},
		Principal: "user:alice@example.com", IssuedAt: time.Now()}
	hit = Query{IDs: []string{benchID(benchIDs / 2), "rv_not_revoked_root___"},
		Principal: "user:alice@example.com", IssuedAt: time.Now()}
	return miss, hit
}

// benchCheck runs the hot-path sub-benchmarks on s, reporting the heap
// bytes per revoked id measured while loading it.
func benchCheck(b *testing.B, s Store, perID float64) {
	ctx := context.Background()
	miss, hit := benchQueries()
	for name, q := range map[string]Query{"miss-chain3": miss, "hit": hit} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Check(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perID, "B/id")
		})
	}
	b.Run("miss-chain3-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Check(ctx, miss); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

func BenchmarkMemoryCheck(b *testing.B) {
	m := NewMemory(MemoryOptions{})
	defer func() { _ = m.Close() }()
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	before := heapInUse()
	for i := range benchIDs {
		if err := m.Revoke(ctx, benchID(i), until); err != nil {
			b.Fatal(err)
		}
	}
	perID := float64(heapInUse()-before) / benchIDs
	b.Logf("Memory: %d revoked ids, %.0f bytes of heap per id", m.Len(), perID)
	benchCheck(b, m, perID)
}

func BenchmarkSyncedCheck(b *testing.B) {
	srv := redistest.Start(b)
	r := startRedis(b, srv.Client, RedisOptions{Timeout: 5 * time.Second})
	loadRedis(b, r, benchIDs)
	before := heapInUse()
	start := time.Now()
	s := startSynced(b, r, SyncedOptions{})
	took := time.Since(start)
	perID := float64(heapInUse()-before) / benchIDs
	b.Logf("Synced: initial resync of %d ids took %v; %.0f bytes of heap per id", s.Stats().Size, took.Round(time.Millisecond), perID)
	benchCheck(b, s, perID)
}

func BenchmarkRedisCheck(b *testing.B) {
	srv := redistest.Start(b)
	r := startRedis(b, srv.Client, RedisOptions{})
	loadRedis(b, r, 10_000)
	ctx := context.Background()
	miss, _ := benchQueries()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Check(ctx, miss); err != nil {
			b.Fatal(err)
		}
	}
}

// loadRedis writes n revocations straight into Redis in pipelined batches,
// in the layout the scripts write.
func loadRedis(b *testing.B, r *Redis, n int) {
	b.Helper()
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	value := until.UnixMilli()
	for start := 0; start < n; start += 10_000 {
		pipe := r.client.Pipeline()
		for i := start; i < min(start+10_000, n); i++ {
			pipe.Set(ctx, r.keys.id(benchID(i)), value, time.Hour)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyncedRevoke times Revoke on replica A of two Synced replicas
// sharing one throwaway redis-server, and reports the p50 and p99 of the
// calls besides the mean.
func BenchmarkSyncedRevoke(b *testing.B) {
	srv := redistest.Start(b)
	prefix := freshPrefix()
	a := startSynced(b, startRedis(b, srv.NewClient(nil), RedisOptions{Prefix: prefix}), SyncedOptions{})
	startSynced(b, startRedis(b, srv.NewClient(nil), RedisOptions{Prefix: prefix}), SyncedOptions{})
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	var took []time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if err := a.Revoke(ctx, benchID(i), until); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		i++
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
}
