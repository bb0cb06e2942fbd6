package capindex_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
	"github.com/capgate/capgate/revocation/redistest"
)

// errInjected is the failure holdHook gives the commands it fails.
var errInjected = errors.New("injected failure")

// holdHook stands between the index and Redis and holds back the
// commands pick picks: it sends the rest of their batch first, as a
// Cluster may when the held ones go to another node, then calls during,
// then fails the held ones with err when it is set, or sends them.
type holdHook struct {
	pick   func(args []any) bool
	during func()
	err    error
}

func (h holdHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h holdHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	pipe := h.ProcessPipelineHook(func(ctx context.Context, cmds []redis.Cmder) error {
		return next(ctx, cmds[0])
	})
	return func(ctx context.Context, cmd redis.Cmder) error { return pipe(ctx, []redis.Cmder{cmd}) }
}

func (h holdHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var held, rest []redis.Cmder
		for _, c := range cmds {
			if h.pick(c.Args()) {
				held = append(held, c)
			} else {
				rest = append(rest, c)
			}
		}
		if len(held) == 0 {
			return next(ctx, cmds)
		}
		var err error
		if len(rest) > 0 {
			err = next(ctx, rest)
		}
		if h.during != nil {
			h.during()
		}
		if h.err != nil {
			for _, c := range held {
				c.SetErr(h.err)
			}
			return h.err
		}
		if e := next(ctx, held); err == nil {
			err = e
		}
		return err
	}
}

// command picks the commands named name whose key is one of keys (any
// key when there are none).
func command(name string, keys ...string) func(args []any) bool {
	return func(args []any) bool {
		if len(args) < 2 || args[0] != name {
			return false
		}
		key, _ := args[1].(string)
		return len(keys) == 0 || slices.Contains(keys, key)
	}
}

// backends are a single node and a cluster, on which a test makes a
// client with its hook for each case.
type backends struct {
	single  *redistest.Server
	cluster *redistest.Cluster
}

func startBackends(t *testing.T) backends {
	return backends{single: redistest.Start(t), cluster: redistest.StartCluster(t, 3)}
}

// clients returns a new client of each backend with hook.
func (b backends) clients(hook redis.Hook) map[string]redis.UniversalClient {
	single, cluster := b.single.NewClient(nil), b.cluster.NewClient(nil)
	single.AddHook(hook)
	cluster.AddHook(hook)
	return map[string]redis.UniversalClient{"single node": single, "cluster": cluster}
}

// putRecord is the record the Put tests put: user:a's, held by agent:s.
func putRecord(t *testing.T, now time.Time) capindex.Record {
	return capindex.Record{
		CapabilityID: "cap_p", Token: capindextest.Token(t, "cap_p"), Principal: "user:a", Holder: "agent:s",
		Agent: "documents", Grant: "documents:read", IssuedAt: now, Expires: now.Add(time.Hour),
	}
}

// listings are every listing that covers putRecord's record.
func listings(ctx context.Context, ix *capindex.Redis) map[string]func() ([]capindex.Record, error) {
	return map[string]func() ([]capindex.Record, error){
		"by principal": func() ([]capindex.Record, error) { return ix.ListByPrincipal(ctx, "user:a") },
		"by holder":    func() ([]capindex.Record, error) { return ix.ListByPrincipal(ctx, "agent:s") },
		"all":          func() ([]capindex.Record, error) { return ix.List(ctx, capindex.Filter{}) },
	}
}

// TestRedisPutFailureLeavesNothing: a Put that fails, whichever of its
// writes Redis refused, leaves neither the record nor an entry in a
// sorted set: no listing names the capability, missing or otherwise,
// and Get does not find it. The error is ErrUnavailable.
func TestRedisPutFailureLeavesNothing(t *testing.T) {
	b := startBackends(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		pick func(prefix string) func(args []any) bool
	}{
		{"record's SET fails", func(p string) func([]any) bool { return command("set", p+"cap:cap_p") }},
		{"holder's ZADD fails", func(p string) func([]any) bool { return command("zadd", p+"capsby:agent:s") }},
		{"all-set ZADD fails", func(p string) func([]any) bool { return command("zadd", p+"capsall") }},
	} {
		prefix := "f" + tc.name[:3] + ":"
		for backend, c := range b.clients(holdHook{pick: tc.pick(prefix), err: errInjected}) {
			ix := capindex.NewRedis(c, prefix, time.Second, time.Now)
			err := ix.Put(ctx, putRecord(t, time.Now()))
			if !errors.Is(err, capindex.ErrUnavailable) || !errors.Is(err, errInjected) {
				t.Fatalf("%s, %s: Put() = %v, want ErrUnavailable wrapping the failure", tc.name, backend, err)
			}
			for name, list := range listings(ctx, ix) {
				if recs, err := list(); err != nil || len(recs) != 0 {
					t.Errorf("%s, %s: listing %s = %s, %v; want nothing", tc.name, backend, name, ids(recs), err)
				}
			}
			if _, err := ix.Get(ctx, "cap_p"); !errors.Is(err, capindex.ErrNotFound) {
				t.Errorf("%s, %s: Get() = %v, want ErrNotFound", tc.name, backend, err)
			}
			for _, k := range []string{"capsby:user:a", "capsby:agent:s", "capsall"} {
				if err := c.ZScore(ctx, prefix+k, "cap_p").Err(); !errors.Is(err, redis.Nil) {
					t.Errorf("%s, %s: %s still lists cap_p (%v)", tc.name, backend, k, err)
				}
			}
		}
	}
}

// TestRedisPutKeepsRecordWhileListed: when a failed Put cannot take the
// capability out of the sorted sets either, it keeps its record, so that
// the listings read it like any other (and it can be revoked by id)
// instead of naming it missing; the error says it may still be listed.
func TestRedisPutKeepsRecordWhileListed(t *testing.T) {
	b := startBackends(t)
	ctx := context.Background()
	pick := func(args []any) bool { return command("zadd", "k:capsby:agent:s")(args) || command("zrem")(args) }
	for backend, c := range b.clients(holdHook{pick: pick, err: errInjected}) {
		ix := capindex.NewRedis(c, "k:", time.Second, time.Now)
		err := ix.Put(ctx, putRecord(t, time.Now()))
		if !errors.Is(err, capindex.ErrUnavailable) || !strings.Contains(err.Error(), "cap_p may still be listed") {
			t.Fatalf("%s: Put() = %v, want ErrUnavailable saying cap_p may still be listed", backend, err)
		}
		for name, want := range map[string]string{"by principal": "[cap_p]", "by holder": "[]", "all": "[cap_p]"} {
			if recs, err := listings(ctx, ix)[name](); err != nil || ids(recs) != want {
				t.Errorf("%s: listing %s = %s, %v; want %s", backend, name, ids(recs), err, want)
			}
		}
	}
}

// TestRedisListingDuringPut: on a Cluster, where the record and the
// sorted sets live on different nodes, a listing that runs while Put's
// record is on its way, after anything else Put sends alongside it has
// landed, does not name the capability: Put lists it only once its
// record is there. After Put, every listing returns it. (A single node
// runs the commands of one connection in order: see
// TestRedisPutSendsRecordFirst.)
func TestRedisListingDuringPut(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := context.Background()
	var ix *capindex.Redis
	var during []string
	c := cl.NewClient(nil)
	c.AddHook(holdHook{pick: command("set", "d:cap:cap_p"), during: func() {
		for name, list := range listings(ctx, ix) {
			if recs, err := list(); err != nil || len(recs) != 0 {
				during = append(during, fmt.Sprintf("%s: %s, %v", name, ids(recs), err))
			}
		}
	}})
	ix = capindex.NewRedis(c, "d:", time.Second, time.Now)
	if err := ix.Put(ctx, putRecord(t, time.Now())); err != nil {
		t.Fatalf("Put() = %v", err)
	}
	if len(during) > 0 {
		t.Errorf("listings during Put named the capability: %q", during)
	}
	for name, list := range listings(ctx, ix) {
		if recs, err := list(); err != nil || ids(recs) != "[cap_p]" {
			t.Errorf("listing %s after Put = %s, %v; want [cap_p]", name, ids(recs), err)
		}
	}
}

// TestRedisPutSendsRecordFirst: Put sends the record ahead of every
// entry that lists it, on a single node and on a Cluster.
func TestRedisPutSendsRecordFirst(t *testing.T) {
	b := startBackends(t)
	var sent []string
	// This hook holds nothing back: it notes the writes in the order sent.
	note := holdHook{pick: func(args []any) bool {
		if name, _ := args[0].(string); name == "set" || name == "zadd" {
			sent = append(sent, name)
		}
		return false
	}}
	for backend, c := range b.clients(note) {
		sent = nil
		if err := capindex.NewRedis(c, "o:", time.Second, time.Now).Put(context.Background(), putRecord(t, time.Now())); err != nil {
			t.Fatalf("%s: Put() = %v", backend, err)
		}
		if want := []string{"set", "zadd", "zadd", "zadd"}; !slices.Equal(sent, want) {
			t.Errorf("%s: Put sent %v, want %v", backend, sent, want)
		}
	}
}
