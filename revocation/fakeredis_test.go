package revocation

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replies a fake server can give besides raw RESP.
const (
	hang  = "" // never answer
	slam  = "close"
	okRep = "+OK\r\n"
)

// fakeRedis is a tiny RESP2 server whose answer to each command a test
// chooses, to make Redis misbehave in ways a real one rarely does.
type fakeRedis struct {
	ln     net.Listener
	answer func(cmd []string) string
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

func startFake(t *testing.T, answer func(cmd []string) string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, answer: answer}
	f.wg.Go(f.serve)
	t.Cleanup(f.close)
	return f
}

func (f *fakeRedis) close() {
	_ = f.ln.Close()
	f.mu.Lock()
	for _, c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

func (f *fakeRedis) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.wg.Go(func() { f.handle(c) })
	}
}

func (f *fakeRedis) handle(c net.Conn) {
	defer func() { _ = c.Close() }()
	rd := bufio.NewReader(c)
	for {
		cmd, err := readCommand(rd)
		if err != nil {
			return
		}
		reply := f.reply(cmd)
		switch reply {
		case hang:
			_, _ = io.Copy(io.Discard, rd) // until the client gives up
			return
		case slam:
			return
		}
		if _, err := c.Write([]byte(reply)); err != nil {
			return
		}
	}
}

// reply answers connection set-up and the epoch marker itself and the
// rest through answer.
func (f *fakeRedis) reply(cmd []string) string {
	if strings.EqualFold(cmd[0], "GET") && len(cmd) == 2 && strings.HasSuffix(cmd[1], epochKind) {
		return "$7\r\nepoch-1\r\n"
	}
	switch strings.ToUpper(cmd[0]) {
	case "HELLO":
		return "-ERR unknown command 'HELLO'\r\n"
	case "PING":
		return "+PONG\r\n"
	case "CLIENT", "SELECT":
		return okRep
	}
	return f.answer(cmd)
}

// readCommand reads one RESP array of bulk strings.
func readCommand(rd *bufio.Reader) ([]string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad array length %q", line)
	}
	cmd := make([]string, n)
	for i := range cmd {
		hdr, err := rd.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(hdr, "$")))
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, err
		}
		cmd[i] = string(buf[:size])
	}
	return cmd, nil
}

// byCommand answers EXISTS and GET with the given replies.
func byCommand(exists, get string) func([]string) string {
	return func(cmd []string) string {
		switch strings.ToUpper(cmd[0]) {
		case "EXISTS":
			return exists
		case "GET":
			return get
		}
		return "-ERR unexpected " + cmd[0] + "\r\n"
	}
}

func TestCheckAgainstMisbehavingRedis(t *testing.T) {
	query := Query{IDs: []string{"rv_a", "rv_b"}, Principal: "user:p", IssuedAt: time.Now()}
	const timeout = 300 * time.Millisecond
	tests := []struct {
		name      string
		exists    string
		get       string
		want      Result
		wantErr   error
		alsoWants error
	}{
		{"healthy, not revoked", ":0\r\n", "$-1\r\n", Result{}, nil, nil},
		{"healthy, revoked", ":1\r\n", "$-1\r\n", Result{Revoked: true, By: "rv_a"}, nil, nil},
		{"healthy, cutoff matches", ":0\r\n", "$19\r\n9000000000000000000\r\n", Result{Revoked: true, By: "principal:user:p"}, nil, nil},
		{"error reply", "-ERR something broke\r\n", "$-1\r\n", Result{}, ErrUnavailable, nil},
		{"OOM", "-OOM command not allowed when used memory > 'maxmemory'.\r\n", "$-1\r\n", Result{}, ErrUnavailable, nil},
		{"loading", "-LOADING Redis is loading the dataset in memory\r\n", "$-1\r\n", Result{}, ErrUnavailable, nil},
		{"EXISTS answers a string", "$3\r\nabc\r\n", "$-1\r\n", Result{}, ErrUnavailable, nil},
		{"EXISTS answers 7", ":7\r\n", "$-1\r\n", Result{}, ErrUnavailable, ErrCorrupt},
		{"EXISTS answers -1", ":-1\r\n", "$-1\r\n", Result{}, ErrUnavailable, ErrCorrupt},
		{"cutoff garbage", ":0\r\n", "$5\r\nhello\r\n", Result{}, ErrUnavailable, ErrCorrupt},
		{"cutoff empty", ":0\r\n", "$0\r\n\r\n", Result{}, ErrUnavailable, ErrCorrupt},
		{"cutoff is an array", ":0\r\n", "*1\r\n$1\r\n1\r\n", Result{}, ErrUnavailable, nil},
		{"cutoff error", ":0\r\n", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", Result{}, ErrUnavailable, nil},
		{"connection dropped", slam, slam, Result{}, ErrUnavailable, nil},
		{"no answer", hang, hang, Result{}, ErrUnavailable, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t, byCommand(tc.exists, tc.get))
			client := redis.NewClient(&redis.Options{Addr: f.ln.Addr().String()})
			t.Cleanup(func() { _ = client.Close() })
			r := startRedis(t, client, RedisOptions{Timeout: timeout})
			start := time.Now()
			res, err := r.Check(t.Context(), query)
			took := time.Since(start)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) || res != tc.want {
				t.Fatalf("Check = %+v, %v; want %+v, %v", res, err, tc.want, tc.wantErr)
			}
			if tc.alsoWants != nil && !errors.Is(err, tc.alsoWants) {
				t.Fatalf("Check error %v does not wrap %v", err, tc.alsoWants)
			}
			if took > timeout+5*time.Second {
				t.Errorf("Check took %v with a %v timeout", took, timeout)
			}
			t.Logf("answered in %v: %v", took.Round(time.Millisecond), err)
		})
	}
}

func TestBreakerOpensOnHangingRedis(t *testing.T) {
	f := startFake(t, byCommand(hang, hang))
	client := redis.NewClient(&redis.Options{Addr: f.ln.Addr().String()})
	t.Cleanup(func() { _ = client.Close() })
	clock := &lockedClock{t: time.Now()}
	r := startRedis(t, client, RedisOptions{
		Timeout: 100 * time.Millisecond,
		Now:     clock.Now,
		Breaker: BreakerOptions{FailureThreshold: 2, CoolDown: time.Minute},
	})
	for i := range 2 {
		if _, err := r.Check(t.Context(), q("rv_a")); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("call %d = %v, want a timeout", i, err)
		}
	}
	if st := r.Stats(); st.Breaker != BreakerOpen {
		t.Fatalf("breaker %v after 2 timeouts, want open", st.Breaker)
	}
	_, err := r.Check(t.Context(), q("rv_a"))
	if !errors.Is(err, ErrCircuitOpen) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Check with breaker open = %v, want ErrCircuitOpen and ErrUnavailable", err)
	}
	if err := r.Revoke(t.Context(), "rv_a", time.Now().Add(time.Hour)); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("Revoke with breaker open = %v, want ErrCircuitOpen", err)
	}
	// After the cool-down one probe goes through; it times out and the
	// breaker reopens.
	clock.Advance(time.Minute)
	if _, err := r.Check(t.Context(), q("rv_a")); errors.Is(err, ErrCircuitOpen) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("probe = %v, want a timeout", err)
	}
	if st := r.Stats(); st.Breaker != BreakerOpen {
		t.Fatalf("breaker %v after a failed probe, want open", st.Breaker)
	}
}

func TestCallerCancellationDoesNotOpenBreaker(t *testing.T) {
	f := startFake(t, byCommand(hang, hang))
	client := redis.NewClient(&redis.Options{Addr: f.ln.Addr().String()})
	t.Cleanup(func() { _ = client.Close() })
	r := startRedis(t, client, RedisOptions{Timeout: time.Minute, Breaker: BreakerOptions{FailureThreshold: 1}})
	for range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		_, err := r.Check(ctx, q("rv_a"))
		cancel()
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Check = %v, want ErrUnavailable", err)
		}
	}
	if st := r.Stats(); st.Breaker != BreakerClosed {
		t.Fatalf("callers giving up opened the breaker: %+v", st)
	}
}
