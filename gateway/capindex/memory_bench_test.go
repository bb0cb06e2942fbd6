package capindex_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/revocation/redistest"
)

// samplePayload is the payload of a quickstart capability's token, with
// verbs for its capability id, handles, revocation id and sealed map.
const samplePayload = `{"iss":"capgate","sub":"user:alice@example.com","hld":"user:alice@example.com",` +
	`"aud":"documents","cid":"%s","grt":"documents:read","ops":["retrieve","search","list"],"rhs":["%s","%s"],` +
	`"exp":1795557277,"nbf":1795553677,"iat":1795553677,"rid":"%s","dep":0,"mdp":2,"att":true,` +
	`"prv":"2119cbca7d8a","srm":"%s"}`

// sampleHeader is the header every token of the quickstart key has.
const sampleHeader = `{"alg":"EdDSA","kid":"Y8gTzhy5D8OpRcOsr_3JCD3Q33wdfiVv4IidP92yQnw","typ":"cap+jwt"}`

// sampleRecord is a record the size of a quickstart capability: a token
// of 1,134 bytes (an EdDSA JWS with two sealed handles), two display
// names, one principal holding it.
func sampleRecord(tb testing.TB, i int, now time.Time) capindex.Record {
	id, h1, h2, rid := fmt.Sprintf("cap_%022d", i), fmt.Sprintf("rh_%022d", 2*i), fmt.Sprintf("rh_%022d", 2*i+1), fmt.Sprintf("rv_%022d", i)
	enc := base64.RawURLEncoding
	payload := fmt.Sprintf(samplePayload, id, h1, h2, rid, strings.Repeat("e", 305-len(id))+id)
	tok, err := captoken.Pack(enc.EncodeToString([]byte(sampleHeader)) + "." + enc.EncodeToString([]byte(payload)) +
		"." + enc.EncodeToString(fmt.Appendf(nil, "%064d", i)))
	if err != nil || len(tok.String()) != 1134 {
		tb.Fatalf("sample token of %d bytes: %v", len(tok.String()), err)
	}
	return capindex.Record{
		CapabilityID: id, Token: tok,
		Principal: "user:alice@example.com", Holder: "user:alice@example.com", Agent: "documents", Grant: "documents:read",
		DisplayNames: []string{"Q1 Financial Summary", "Q1 Sales Report"},
		IssuedAt:     now, Expires: now.Add(time.Hour),
	}
}

// BenchmarkMemoryIndexBytes puts b.N records (use -benchtime=100000x)
// into the in-memory index and reports the heap each costs after a
// collection, the record's strings included.
func BenchmarkMemoryIndexBytes(b *testing.B) {
	now := time.Now()
	ix := capindex.NewMemory(func() time.Time { return now })
	defer ix.Close()
	before := heapInUse()
	i := 0
	for b.Loop() {
		if err := ix.Put(context.Background(), sampleRecord(b, i, now)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(int64(heapInUse())-int64(before))/float64(b.N), "heapB/cap")
}

// BenchmarkRedisIndexBytes puts b.N records (use -benchtime=100000x)
// into the Redis index on a throwaway redis-server and reports what
// Redis spends on each: used_memory grown per record (the record's key
// and the sorted sets that list it), and MEMORY USAGE of one record's
// key.
func BenchmarkRedisIndexBytes(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	now := time.Now()
	ix := capindex.NewRedis(srv.Client, "capgate:", 5*time.Second, func() time.Time { return now })
	before := redisUsedMemory(b, srv)
	i := 0
	for b.Loop() {
		if err := ix.Put(ctx, sampleRecord(b, i, now)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.StopTimer()
	b.ReportMetric(float64(redisUsedMemory(b, srv)-before)/float64(b.N), "redisB/cap")
	key, err := srv.Client.MemoryUsage(ctx, "capgate:cap:"+sampleRecord(b, 0, now).CapabilityID).Result()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(key), "keyB")
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// redisUsedMemory is INFO memory's used_memory.
func redisUsedMemory(b *testing.B, srv *redistest.Server) int64 {
	info, err := srv.Client.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}
