package loadtest

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/proxy"
)

// Server is one handler served on a loopback listener.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:41234.
	URL  string
	srv  *http.Server
	done chan error
}

// Serve serves h on a new 127.0.0.1:0 listener with the timeouts of the
// listener config l (the same for every target, so none is favoured).
func Serve(h http.Handler, l config.Listener) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%w: listen: %w", ErrSetup, err)
	}
	return serveOn(ln, h, l), nil
}

func serveOn(ln net.Listener, h http.Handler, l config.Listener) *Server {
	s := &Server{URL: "http://" + ln.Addr().String(), srv: gateway.NewServer(l, h), done: make(chan error, 1)}
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	go func() { s.done <- s.srv.Serve(ln) }()
	return s
}

// Close stops the server and closes its connections.
func (s *Server) Close() error {
	err := s.srv.Close()
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// NewBaseline returns the baseline: a plain, tuned reverse proxy to target,
// built like the gateway's own proxy (Rewrite to target's exact path,
// X-Forwarded headers, proxy.NewTransport, a 32 KiB buffer pool,
// FlushInterval 0: streams flushed per write, unary answers not) but with no authorization at all.
func NewBaseline(target *url.URL) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			out := pr.Out
			out.URL.Scheme, out.URL.Host = target.Scheme, target.Host
			out.URL.Path, out.URL.RawPath, out.URL.RawQuery = target.Path, target.RawPath, target.RawQuery
			out.Host = target.Host
			pr.SetXForwarded()
		},
		Transport:  proxy.NewTransport(),
		BufferPool: newBufferPool(),
		ErrorLog:   log.New(io.Discard, "", 0),
	}
}

// bufferPool reuses the 32 KiB copy buffers of httputil.ReverseProxy, as
// the gateway's proxy does.
type bufferPool struct{ p sync.Pool }

func newBufferPool() *bufferPool {
	return &bufferPool{p: sync.Pool{New: func() any {
		b := make([]byte, 32*1024)
		return &b
	}}}
}

// Get implements httputil.BufferPool.
func (b *bufferPool) Get() []byte { return *(b.p.Get().(*[]byte)) }

// Put implements httputil.BufferPool.
func (b *bufferPool) Put(buf []byte) {
	if cap(buf) == 32*1024 {
		b.p.Put(&buf)
	}
}
