package audit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
	"github.com/redis/go-redis/v9"
)

const streamKey = "capgate:audit"

// waitFor polls cond until it holds or a generous deadline passes. It is a
// liveness check, not a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// replica is one gateway replica's audit pipeline.
type replica struct {
	file   lockedBuffer
	stream *RedisStream
	h      *Handler
	log    *slog.Logger
}

func newReplica(t *testing.T, client redis.UniversalClient, chain string, opts ...StreamOption) *replica {
	t.Helper()
	r := &replica{}
	r.stream = NewRedisStream(client, streamKey, 0, time.Second, opts...)
	t.Cleanup(func() { _ = r.stream.Close() })
	r.h = NewHandler(&r.file, Options{Chain: chain, Stream: r.stream, Now: testClock()})
	r.log = slog.New(r.h)
	return r
}

func TestRedisStreamRoundTripSeveralReplicas(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	a, b := newReplica(t, srv.Client, "r1"), newReplica(t, srv.Client, "r2")
	var wg sync.WaitGroup
	for _, r := range []*replica{a, b} {
		wg.Go(func() {
			for i := range 300 {
				r.log.Info("capability.invoke", "i", i, "decision", "allow")
			}
		})
	}
	wg.Wait()
	for _, r := range []*replica{a, b} {
		if err := r.stream.Close(); err != nil {
			t.Fatal(err)
		}
		if st := r.stream.Stats(); st.Delivered != 300 || st.Dropped != 0 {
			t.Fatalf("stats %+v; want 300 delivered, none dropped", st)
		}
	}
	rep, err := VerifyStream(ctx, srv.Client, streamKey)
	if err != nil {
		t.Fatalf("VerifyStream: %v", err)
	}
	if rep.Events != 600 || len(rep.Chains) != 2 || rep.Missing() != 0 {
		t.Fatalf("report %+v", rep)
	}
	for i, r := range []*replica{a, b} {
		if c := rep.Chains[i]; c.Head != r.h.Head().Hash || c.First != 1 || c.Last != 300 {
			t.Fatalf("chain %+v does not end at the writer's head %+v", c, r.h.Head())
		}
	}
}

func TestVerifyStreamDetectsTampering(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		edit    func(t *testing.T, c *redis.Client, ids []string, lines []string)
		wantErr error
		wantPos int
	}{
		{"deleted entry", func(t *testing.T, c *redis.Client, ids, _ []string) {
			c.XDel(ctx, streamKey, ids[2])
		}, ErrTampered, 3},
		{"forged copy appended", func(t *testing.T, c *redis.Client, _, lines []string) {
			forged := strings.Replace(lines[1], `"decision":"allow"`, `"decision":"deny"`, 1)
			c.XAdd(ctx, &redis.XAddArgs{Stream: streamKey, Values: []string{StreamFieldLine, forged}})
		}, ErrTampered, 6},
		{"gap declared where the chain is not", func(t *testing.T, c *redis.Client, _, _ []string) {
			c.XAdd(ctx, &redis.XAddArgs{Stream: streamKey, Values: []string{StreamFieldGap, `{"chain":"r1","after":1,"next":3}`}})
		}, ErrTampered, 6},
		{"unknown field", func(t *testing.T, c *redis.Client, _, _ []string) {
			c.XAdd(ctx, &redis.XAddArgs{Stream: streamKey, Values: []string{"line2", "{}"}})
		}, ErrMalformed, 6},
		{"malformed gap", func(t *testing.T, c *redis.Client, _, _ []string) {
			c.XAdd(ctx, &redis.XAddArgs{Stream: streamKey, Values: []string{StreamFieldGap, `{"chain":"r1","after":5,"next":6}`}})
		}, ErrMalformed, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t)
			r := newReplica(t, srv.Client, "r1")
			for range 5 {
				r.log.Info("capability.invoke", "decision", "allow")
			}
			_ = r.stream.Close()
			msgs, err := srv.Client.XRange(ctx, streamKey, "-", "+").Result()
			if err != nil || len(msgs) != 5 {
				t.Fatalf("XRANGE: %d entries, %v", len(msgs), err)
			}
			var ids, lines []string
			for _, m := range msgs {
				ids, lines = append(ids, m.ID), append(lines, m.Values[StreamFieldLine].(string))
			}
			tt.edit(t, srv.Client, ids, lines)
			_, err = VerifyStream(ctx, srv.Client, streamKey)
			var le *LineError
			if !errors.Is(err, tt.wantErr) || !errors.As(err, &le) {
				t.Fatalf("VerifyStream = %v; want %v", err, tt.wantErr)
			}
			if le.Line != tt.wantPos || le.ID == "" {
				t.Fatalf("VerifyStream = %v; want entry %d named with its id", err, tt.wantPos)
			}
		})
	}
}

func TestRedisStreamSurvivesRedisDeath(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	var drops, redisErrs atomic.Int64
	var diag lockedBuffer
	r := newReplica(t, srv.NewClient(&redis.Options{MaxRetries: -1, DialTimeout: 200 * time.Millisecond}), "r1",
		WithBuffer(8), WithBatch(4), WithRetryBackoff(5*time.Millisecond, 20*time.Millisecond),
		WithLogger(slog.New(slog.NewTextHandler(&diag, nil))),
		WithOnDrop(func() { drops.Add(1) }), WithOnError(func(error) { redisErrs.Add(1) }))

	for i := range 20 {
		r.log.Info("capability.invoke", "i", i)
	}
	waitFor(t, "the first events to be handled", func() bool {
		st := r.stream.Stats()
		return st.Delivered+st.Dropped == 20
	})
	srv.Kill()
	for i := range 200 { // must not block although Redis is gone
		r.log.Info("capability.invoke", "i", i)
	}
	waitFor(t, "drops to be counted", func() bool { return r.stream.Dropped() > 0 && redisErrs.Load() > 0 })
	if !strings.Contains(diag.String(), "dropping events") {
		t.Fatalf("drops were not logged:\n%s", diag.String())
	}
	if rep, err := Verify(strings.NewReader(r.file.String())); err != nil || rep.Events != 220 {
		t.Fatalf("the audit file lost events while Redis was down: %+v, %v", rep, err)
	}

	srv.Restart() // empty: the earlier entries are gone with the old process
	handled := func(n uint64) func() bool {
		return func() bool { st := r.stream.Stats(); return st.Delivered+st.Dropped == n }
	}
	waitFor(t, "the backlog to drain", handled(220))
	for i := range 10 {
		r.log.Info("capability.invoke", "after", i)
		waitFor(t, "the event to be delivered", handled(uint64(221+i)))
	}
	_ = r.stream.Close()
	st := r.stream.Stats()
	if st.Delivered+st.Dropped != 230 || int64(st.Dropped) != drops.Load() {
		t.Fatalf("stats %+v, hook saw %d drops; want every event delivered or counted", st, drops.Load())
	}
	rep, err := VerifyStream(ctx, srv.Client, streamKey)
	if err != nil {
		t.Fatalf("VerifyStream after the restart: %v", err)
	}
	c := rep.Chains[0]
	if c.Last != 230 || c.Head != r.h.Head().Hash || len(c.Gaps) == 0 {
		t.Fatalf("chain %+v; want it to end at the writer's head with the loss declared", c)
	}
}

func TestRedisStreamPausedRedisDoesNotBlock(t *testing.T) {
	srv := redistest.Start(t)
	r := newReplica(t, srv.Client, "r1", WithBuffer(16))
	srv.Pause()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 500 {
			r.log.Info("capability.invoke", "i", i)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the audit handler blocked on a hung Redis")
	}
	srv.Resume()
	_ = r.stream.Close()
	if st := r.stream.Stats(); st.Dropped == 0 || st.Delivered+st.Dropped != 500 {
		t.Fatalf("stats %+v; want drops counted and every event accounted for", st)
	}
}

func TestRedisStreamTrimsAndStillVerifies(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	var file bytes.Buffer
	s := NewRedisStream(srv.Client, streamKey, 50, time.Second)
	log := slog.New(NewHandler(&file, Options{Chain: "r1", Stream: s}))
	for i := range 1000 {
		log.Info("capability.invoke", "i", i)
	}
	_ = s.Close()
	if n := srv.Client.XLen(ctx, streamKey).Val(); n >= 1000 || n < 50 {
		t.Fatalf("XLEN %d; want the stream trimmed to about 50", n)
	}
	rep, err := VerifyStream(ctx, srv.Client, streamKey)
	if err != nil || !rep.Chains[0].Trimmed || rep.Chains[0].Last != 1000 {
		t.Fatalf("VerifyStream of a trimmed stream = %+v, %v", rep, err)
	}
}

func TestRedisStreamClosed(t *testing.T) {
	srv := redistest.Start(t)
	s := NewRedisStream(srv.Client, streamKey, 0, time.Second)
	_ = s.Close()
	_ = s.Close()
	s.Enqueue(Entry{Chain: "r1", Seq: 1, Line: []byte("{}")})
	if s.Dropped() != 1 {
		t.Fatalf("an event enqueued after Close was not counted as dropped")
	}
}

func TestVerifyStreamRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	client := srv.NewClient(&redis.Options{MaxRetries: -1})
	srv.Kill()
	_, err := VerifyStream(context.Background(), client, streamKey)
	var le *LineError
	if err == nil || errors.As(err, &le) || errors.Is(err, ErrTampered) {
		t.Fatalf("VerifyStream with Redis down = %v; want a technical error", err)
	}
}

func TestRedisStreamCloseWithRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	r := newReplica(t, srv.NewClient(&redis.Options{MaxRetries: -1}), "r1", WithBatch(4))
	srv.Kill()
	for i := range 50 {
		r.log.Info("capability.invoke", "i", i)
	}
	done := make(chan struct{})
	go func() { _ = r.stream.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close hung on a dead Redis")
	}
	if st := r.stream.Stats(); st.Delivered != 0 || st.Dropped != 50 {
		t.Fatalf("stats %+v; want all 50 counted as dropped", st)
	}
}
