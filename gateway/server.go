package gateway

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/capgate/capgate/gateway/config"
)

// NewServer returns an http.Server with the timeouts a public listener
// needs. WriteTimeout does not cut streams: the stream handler extends its
// own deadline to the listener's stream timeout.
func NewServer(l config.Listener, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              l.Addr,
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout.D(),
		ReadTimeout:       l.ReadTimeout.D(),
		WriteTimeout:      l.WriteTimeout.D(),
		IdleTimeout:       l.IdleTimeout.D(),
		MaxHeaderBytes:    64 << 10,
	}
}

// Serve serves on ln until ctx is done, then drains: readiness turns false
// first, the listener keeps serving for the drain delay so load balancers
// notice, then it stops accepting and waits up to the shutdown timeout for
// in-flight requests to finish.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener, srv *http.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	g.SetDraining()
	g.logger.Info("draining", "delay", g.cfg.Listen.DrainDelay.D().String())
	if d := g.cfg.Listen.DrainDelay.D(); d > 0 {
		time.Sleep(d)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.cfg.Listen.ShutdownTimeout.D())
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
