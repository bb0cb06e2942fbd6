package capindex_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/revocation/redistest"
)

// BenchmarkRedisPut is the time one Put of a quickstart-sized record
// takes against a throwaway redis-server on loopback: what a capability's
// issuance waits for the index.
func BenchmarkRedisPut(b *testing.B) {
	benchmarkPut(b, redistest.Start(b).Client)
}

// BenchmarkRedisClusterPut is BenchmarkRedisPut against a throwaway
// cluster of three masters, where the record and its sorted sets live on
// different nodes.
func BenchmarkRedisClusterPut(b *testing.B) {
	benchmarkPut(b, redistest.StartCluster(b, 3).Client)
}

// BenchmarkRedisPutParallel is BenchmarkRedisPut with 16 Puts at a time
// per core: what the round trips of one Put cost Redis and the client
// when issuances come in parallel.
func BenchmarkRedisPutParallel(b *testing.B) {
	ix, recs := putBench(b, redistest.Start(b).Client)
	var n atomic.Int64
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := ix.Put(context.Background(), recs[n.Add(1)%int64(len(recs))]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func benchmarkPut(b *testing.B, c redis.UniversalClient) {
	ctx := context.Background()
	ix, recs := putBench(b, c)
	i := 0
	for b.Loop() {
		if err := ix.Put(ctx, recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// putBench returns an index on c and the quickstart-sized records a
// benchmark puts, again and again.
func putBench(b *testing.B, c redis.UniversalClient) (*capindex.Redis, []capindex.Record) {
	now := time.Now()
	recs := make([]capindex.Record, 1000)
	for i := range recs {
		recs[i] = sampleRecord(b, i, now)
	}
	return capindex.NewRedis(c, "capgate:", 5*time.Second, func() time.Time { return now }), recs
}
