package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SkipEnv is the environment variable that, set to "1", turns a missing
// redis-server into a skip instead of a failure.
const SkipEnv = "CAPGATE_SKIP_REDIS"

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 15 * time.Second

// Server is one redis-server process on a loopback port.
type Server struct {
	// Addr is "127.0.0.1:<port>"; it stays the same across Restart.
	Addr string
	// Client is a client for Addr with go-redis defaults, closed by
	// t.Cleanup.
	Client *redis.Client

	t    testing.TB
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd's Wait returns
	paused bool
	log    lockedBuffer
}

// Start starts a redis-server on a free loopback port with persistence off
// and extra arguments appended (for example "--maxmemory", "10mb"), waits
// until it answers PING, and registers its cleanup with t.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	requireRedis(t)
	port := freePort(t, false)
	return startOn(t, port, extra...)
}

// startOn starts a server on port.
func startOn(t testing.TB, port int, extra ...string) *Server {
	t.Helper()
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), t: t}
	s.args = append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(),
		"--daemonize", "no", "--loglevel", "warning",
	}, extra...)
	t.Cleanup(s.stop)
	s.launch()
	s.Client = s.NewClient(nil)
	return s
}

// NewClient returns a new client for the server, closed by t.Cleanup. A
// nil opts means go-redis defaults; Addr is always set.
func (s *Server) NewClient(opts *redis.Options) *redis.Client {
	o := redis.Options{}
	if opts != nil {
		o = *opts
	}
	o.Addr = s.Addr
	c := redis.NewClient(&o)
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}

// launch starts the process and waits until it answers.
func (s *Server) launch() {
	s.t.Helper()
	cmd := exec.Command("redis-server", s.args...)
	cmd.Stdout, cmd.Stderr = &s.log, &s.log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("redistest: starting redis-server: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited, s.paused = cmd, exited, false
	s.mu.Unlock()
	if err := waitPing(s.Addr, exited); err != nil {
		s.t.Fatalf("redistest: redis-server on %s: %v\n%s", s.Addr, err, s.log.String())
	}
}

// Kill stops the server with SIGKILL and waits for it to exit.
func (s *Server) Kill() {
	s.t.Helper()
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// Restart kills the server if it runs and starts a new, empty one on the
// same port.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.launch()
}

// Pause stops the server with SIGSTOP: connections stay open but nothing
// answers.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP, true) }

// Resume continues a paused server with SIGCONT.
func (s *Server) Resume() { s.signal(syscall.SIGCONT, false) }

func (s *Server) signal(sig syscall.Signal, paused bool) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatalf("redistest: %v on a stopped server", sig)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("redistest: %v: %v", sig, err)
	}
	s.paused = paused
}

// stop is the cleanup: resume if paused, then kill.
func (s *Server) stop() {
	s.mu.Lock()
	if s.cmd != nil && s.paused {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
	}
	s.mu.Unlock()
	s.Kill()
}

// requireRedis fails (or, with SkipEnv=1, skips) when redis-server or
// redis-cli is missing.
func requireRedis(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv(SkipEnv) == "1" {
				t.Skipf("redistest: %s not on PATH and %s=1", bin, SkipEnv)
			}
			t.Fatalf("redistest: %s not on PATH: install it (Debian: apt-get install redis-server redis-tools), or set %s=1 to skip Redis tests", bin, SkipEnv)
		}
	}
}

// freePort returns a loopback port that is free now; with bus, port+10000
// (the Cluster bus port) is free too.
func freePort(t testing.TB, bus bool) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("redistest: no free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if port == 6379 {
			continue
		}
		if !bus {
			return port
		}
		if port+10000 > 65535 {
			continue
		}
		if b, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000))); err == nil {
			_ = b.Close()
			return port
		}
	}
	t.Fatal("redistest: no free port pair for a cluster node")
	return 0
}

// waitPing waits until addr answers PING with PONG, the process exits, or
// startTimeout passes.
func waitPing(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	for {
		if err := ping(addr); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return err
		}
		select {
		case <-exited:
			return fmt.Errorf("process exited")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ping sends an inline PING over a raw connection.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
