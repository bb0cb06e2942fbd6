package quickstart

import (
	"fmt"
	"net"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/files"
)

// FilesServer is the files MCP server as the world runs it: a server built
// on the official MCP Go SDK alone, which knows nothing about
// capabilities.
type FilesServer struct {
	*files.Server
	// URL is its Streamable HTTP endpoint, "http://127.0.0.1:PORT/": the
	// config's url.
	URL string
	// Recorder keeps every HTTP request that reached it, so that a demo or
	// a test can show that a refused call never did.
	Recorder *documents.Recorder
}

// startFiles starts the files MCP server on a loopback port, served until
// the world closes.
func (w *World) startFiles(opts Options) (*FilesServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("quickstart: files listen: %w", err)
	}
	base := "http://" + ln.Addr().String() + "/"
	s := files.New(files.Options{Logger: opts.Logger, Now: opts.Now})
	rec := documents.NewRecorder()
	w.serve(ln, recordRequests(rec, opts.Now, s.Handler()))
	return &FilesServer{Server: s, URL: base, Recorder: rec}, nil
}
