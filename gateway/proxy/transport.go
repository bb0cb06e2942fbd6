package proxy

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// NewTransport returns a transport tuned for one busy upstream: enough idle
// connections per host that a burst does not fall back to new dials (the
// default of two halves throughput), and bounded dial and TLS handshakes.
// Response headers are not bounded here because streams may take long to
// start; the gateway bounds non-streaming calls with a context deadline.
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy: nil,
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
}

// bufferPool reuses the 32 KiB copy buffers of httputil.ReverseProxy.
type bufferPool struct{ p sync.Pool }

func newBufferPool() *bufferPool {
	return &bufferPool{p: sync.Pool{New: func() any {
		b := make([]byte, 32*1024)
		return &b
	}}}
}

func (b *bufferPool) Get() []byte { return *(b.p.Get().(*[]byte)) }

func (b *bufferPool) Put(buf []byte) {
	if cap(buf) == 32*1024 {
		b.p.Put(&buf)
	}
}
