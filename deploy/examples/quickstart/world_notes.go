package quickstart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
)

// NotesAgent is the plain notes agent as the world runs it: an agent built
// on the A2A SDK alone, which knows nothing about capabilities.
type NotesAgent struct {
	*notes.Agent
	// URL is its base URL, "http://127.0.0.1:PORT/": the config's url.
	URL string
	// Recorder keeps every request that reached it, so a demo or a test
	// can show that a refused call never did.
	Recorder *documents.Recorder
}

// startNotes starts the notes agent on a loopback port, served until the
// world closes.
func (w *World) startNotes(opts Options) (*NotesAgent, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("quickstart: notes listen: %w", err)
	}
	base := "http://" + ln.Addr().String() + "/"
	agent, err := notes.New(notes.Options{BaseURL: base, Logger: opts.Logger, Now: opts.Now})
	if err != nil {
		ln.Close()
		return nil, err
	}
	rec := documents.NewRecorder()
	w.serve(ln, recordRequests(rec, opts.Now, agent))
	return &NotesAgent{Agent: agent, URL: base, Recorder: rec}, nil
}

// recordRequests records each request in rec, with its JSON-RPC method,
// before next serves it. It reads at most one byte more than the agent
// accepts, so the agent still refuses a body that is too large.
func recordRequests(rec *documents.Recorder, now func() time.Time, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, notes.MaxBodyBytes+1))
		if err != nil {
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &call) // not a single JSON-RPC request: no method recorded
		rec.Record(documents.RecordedRequest{
			Time: now(), Method: r.Method, Path: r.URL.Path, RPCMethod: call.Method, Header: r.Header, Body: body,
		})
		next.ServeHTTP(w, r)
	})
}
