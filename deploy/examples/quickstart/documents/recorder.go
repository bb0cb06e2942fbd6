package documents

import (
	"net/http"
	"slices"
	"sync"
	"time"
)

// DefaultRecorderLimit is how many requests a [Recorder] retains when its
// Limit is zero. Count keeps counting past it.
const DefaultRecorderLimit = 512

// MaxRecordedBody is how many body bytes a [Recorder] keeps per request.
const MaxRecordedBody = 64 << 10

// RecordedRequest is one HTTP request as an agent received it.
type RecordedRequest struct {
	// Time is when the agent received it, from the agent's clock.
	Time time.Time
	// Method is the HTTP method.
	Method string
	// Path is the URL path.
	Path string
	// RPCMethod is the JSON-RPC method as received (before any rewrite),
	// or "" when the body is not a single JSON-RPC request.
	RPCMethod string
	// Header is a copy of the request headers, verbatim (credentials
	// included: the recorder exists for tests and the local demo).
	Header http.Header
	// Body is the request body, at most MaxRecordedBody bytes.
	Body []byte
	// BodyTruncated reports that Body was cut at MaxRecordedBody.
	BodyTruncated bool
}

// Recorder keeps the requests an agent received. It is safe for concurrent
// use, and its zero value is ready to use. It retains the most recent Limit
// requests; Count counts every request since the last Reset.
type Recorder struct {
	// Limit is how many requests to retain; zero means DefaultRecorderLimit.
	Limit int

	mu    sync.Mutex
	reqs  []RecordedRequest
	count int
}

// NewRecorder returns an empty recorder retaining DefaultRecorderLimit
// requests.
func NewRecorder() *Recorder { return &Recorder{} }

// Record appends a copy of req, truncating its body to MaxRecordedBody.
func (r *Recorder) Record(req RecordedRequest) {
	req = cloneRecorded(req)
	if len(req.Body) > MaxRecordedBody {
		req.Body = req.Body[:MaxRecordedBody:MaxRecordedBody]
		req.BodyTruncated = true
	}
	limit := r.Limit
	if limit <= 0 {
		limit = DefaultRecorderLimit
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	if len(r.reqs) >= limit {
		r.reqs = slices.Delete(r.reqs, 0, len(r.reqs)-limit+1)
	}
	r.reqs = append(r.reqs, req)
}

// Requests returns copies of the retained requests, oldest first.
func (r *Recorder) Requests() []RecordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]RecordedRequest, len(r.reqs))
	for i, req := range r.reqs {
		out[i] = cloneRecorded(req)
	}
	return out
}

// Count returns how many requests were recorded since the last Reset.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// CountRPC returns how many retained requests carried the JSON-RPC method
// rpcMethod, exactly as received.
func (r *Recorder) CountRPC(rpcMethod string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, req := range r.reqs {
		if req.RPCMethod == rpcMethod {
			n++
		}
	}
	return n
}

// Reset forgets every recorded request and sets Count to zero.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = nil
	r.count = 0
}

func cloneRecorded(req RecordedRequest) RecordedRequest {
	req.Header = req.Header.Clone()
	req.Body = slices.Clone(req.Body)
	return req
}
