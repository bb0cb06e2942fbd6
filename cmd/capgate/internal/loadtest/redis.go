package loadtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/revocation"
)

// redisStartTimeout bounds how long a started redis-server may take to
// answer PING.
const redisStartTimeout = 10 * time.Second

// redisTimeout bounds each Redis call of the lab's stores. The
// quickstart's settings say 250 ms; the lab allows more, so that a call
// slowed by the load the bench itself puts on a shared machine is
// measured as a slow call, not turned into a refusal (-32049) that fails
// the run. It changes nothing while Redis answers in time.
const redisTimeout = 2 * time.Second

// RedisServer is a throwaway redis-server on a free loopback port, with
// persistence off.
type RedisServer struct {
	// URL is redis://127.0.0.1:<port>/0.
	URL    string
	cmd    *exec.Cmd
	exited chan struct{}
	dir    string
}

// StartRedis starts the redis-server binary at path (see exec.LookPath)
// bound to 127.0.0.1 on a free port, with --save "" and --appendonly no,
// and waits until it answers PING. Close kills it.
func StartRedis(ctx context.Context, path string) (*RedisServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
	}
	dir, err := os.MkdirTemp("", "capgate-loadtest-redis-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
	}
	s := &RedisServer{URL: "redis://127.0.0.1:" + strconv.Itoa(port) + "/0", exited: make(chan struct{}), dir: dir}
	s.cmd = exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", "")
	s.cmd.SysProcAttr = sysProcAttr()
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: start %s: %w", ErrRedisUnavailable, path, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before redis-server binds it; StartRedis then fails cleanly.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *RedisServer) waitReady(ctx context.Context) error {
	opts, err := redis.ParseURL(s.URL)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, redisStartTimeout)
	defer cancel()
	for {
		if err = c.Ping(ctx).Err(); err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%w: redis-server exited: %w", ErrRedisUnavailable, err)
		case <-ctx.Done():
			return fmt.Errorf("%w: redis-server did not answer PING: %w", ErrRedisUnavailable, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close kills the server and removes its folder.
func (s *RedisServer) Close() error {
	err := s.cmd.Process.Kill()
	<-s.exited
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	return errors.Join(err, os.RemoveAll(s.dir))
}

// redisStores are the stores of one Redis variant with what closes them.
type redisStores struct {
	store   revocation.Store
	closers []func() error
}

func (r *redisStores) Close() error {
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i]())
	}
	return errors.Join(errs...)
}

// openRedisStore opens variant's revocation store on Redis at url, keyed
// under prefix: revocation.Redis for VariantRedis, revocation.Synced on
// top of it for VariantSynced. The client is built like the gateway's own
// (gateway.NewRedisClient).
func openRedisStore(ctx context.Context, v Variant, url, prefix string, now func() time.Time) (*redisStores, error) {
	client, err := gateway.NewRedisClient(&config.Redis{URL: url, Prefix: prefix, Timeout: config.Duration(redisTimeout)}, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
	}
	rs := &redisStores{closers: []func() error{client.Close}}
	r, err := revocation.NewRedis(ctx, client, revocation.RedisOptions{Prefix: prefix, Timeout: redisTimeout, Now: now})
	if err != nil {
		rs.Close()
		return nil, fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
	}
	rs.store, rs.closers = r, append(rs.closers, r.Close)
	if v == VariantSynced {
		s, err := revocation.NewSynced(ctx, r, revocation.SyncedOptions{Now: now})
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
		}
		rs.store, rs.closers = s, append(rs.closers, s.Close)
	}
	return rs, nil
}

// randomPrefix is a key prefix of its own for one run, so a shared Redis
// given with --redis is never mixed with real data or another run.
func randomPrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "capgate-loadtest:" + hex.EncodeToString(b) + ":"
}
