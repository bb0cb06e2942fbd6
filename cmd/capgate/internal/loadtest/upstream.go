package loadtest

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// MaxUpstreamBody bounds the request body Upstream reads.
const MaxUpstreamBody = 1 << 20

// Wire names the upstream and the load test speak.
const (
	methodResolve   = "a2a/resources/resolve"
	methodInvoke    = "a2a/skill/invoke"
	methodRequest   = "a2a/capabilities/request"
	methodAttenuate = "a2a/capabilities/attenuate"
	methodToolsCall = "tools/call"
	// capabilityExtensionURI is the SEP capability-negotiation extension.
	capabilityExtensionURI = "https://github.com/a2aproject/A2A/sep/capability-negotiation"
)

// upstreamCard is the documents agent's card as the load test's upstream
// serves it: streaming, protocol versions 0.1 to 1.0, and the capability
// extension declared, so that the gateway's hop checks pass.
const upstreamCard = `{"name":"documents","description":"loadtest stand-in for the quickstart documents agent",` +
	`"url":"http://127.0.0.1/","version":"1.0.0","protocolVersion":"0.3.0",` +
	`"min_protocol_version":"0.1","max_protocol_version":"1.0",` +
	`"capabilities":{"streaming":true,"extensions":[{"uri":"` + capabilityExtensionURI + `"}]},` +
	`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`

// resolveResult is the fixed answer to a2a/resources/resolve: the two Q1
// reports of the quickstart world.
const resolveResult = `{"resources":[` +
	`{"id":"reports/q1-financial","collection":"reports","displayName":"Q1 Financial Summary","attributes":{"quarter":"2025-Q1"}},` +
	`{"id":"reports/q1-sales","collection":"reports","displayName":"Q1 Sales Report","attributes":{"quarter":"2025-Q1"}}]}`

// toolResult is the answer to an MCP tools/call: a CallToolResult with
// one text content.
const toolResult = `{"content":[{"type":"text","text":"ok"}],"isError":false}`

// fixedResult is the answer to every other JSON-RPC call.
const fixedResult = `{"kind":"message","messageId":"loadtest","role":"agent","parts":[{"kind":"text","text":"ok"}]}`

// Fixed error answers (id null) for bodies that cannot be answered.
const (
	parseErrorAnswer     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
	tooLargeErrorAnswer  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body too large"}}`
	methodNotAllowedText = "method not allowed\n"
)

// Upstream is a minimal, fast stand-in for the quickstart documents agent:
// it serves the agent card, answers a2a/resources/resolve with the two Q1
// reports, and answers every other JSON-RPC call with a small fixed result
// echoing the call's id. It reads the whole request body (up to
// MaxUpstreamBody) and reuses its buffers, so it allocates almost nothing
// per call and is not the bottleneck of a load test.
type Upstream struct {
	scratch     sync.Pool // *upstreamScratch
	contentType []string
	calls       atomic.Uint64
	// result answers the calls other than resolution; nil means
	// fixedResult.
	result []byte
}

type upstreamScratch struct {
	in  bytes.Buffer
	lr  io.LimitedReader
	out []byte
}

// NewUpstream returns an Upstream of the quickstart's world.
func NewUpstream() *Upstream { return NewUpstreamIn(World{}) }

// NewUpstreamIn returns an Upstream answering invocations as w says
// (World.AnswerKiB and IDsPerKiB).
func NewUpstreamIn(w World) *Upstream {
	u := &Upstream{contentType: []string{"application/json"}, result: w.answerResult()}
	size := 1024 + len(u.result)
	u.scratch.New = func() any { return &upstreamScratch{out: make([]byte, 0, size)} }
	return u
}

// ServeHTTP implements http.Handler.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/.well-known/agent-card.json" || r.URL.Path == "/.well-known/agent.json"):
		w.Header()["Content-Type"] = u.contentType
		_, _ = io.WriteString(w, upstreamCard)
	case r.Method == http.MethodPost:
		u.serveRPC(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = io.WriteString(w, methodNotAllowedText)
	}
}

// Calls returns how many POSTs (JSON-RPC calls) Upstream has received.
func (u *Upstream) Calls() uint64 { return u.calls.Load() }

// serveRPC reads the whole body and answers it.
func (u *Upstream) serveRPC(w http.ResponseWriter, r *http.Request) {
	u.calls.Add(1)
	s := u.scratch.Get().(*upstreamScratch)
	defer u.scratch.Put(s)
	s.in.Reset()
	s.lr = io.LimitedReader{R: r.Body, N: MaxUpstreamBody + 1}
	_, err := s.in.ReadFrom(&s.lr)
	s.lr.R = nil
	w.Header()["Content-Type"] = u.contentType
	switch {
	case err != nil:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, parseErrorAnswer)
		return
	case s.in.Len() > MaxUpstreamBody:
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, tooLargeErrorAnswer)
		return
	}
	s.out = answer(s.out[:0], s.in.Bytes(), u.result)
	_, _ = w.Write(s.out)
}

// answer appends the JSON-RPC answer to body onto dst: result, or
// fixedResult when it is nil, to every call other than a resolution.
func answer(dst, body, result []byte) []byte {
	env, ok := scanEnvelope(body)
	if !ok || env.method == nil {
		return append(dst, parseErrorAnswer...)
	}
	id := env.id
	if id == nil {
		id = []byte("null")
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	switch {
	case env.methodIs(methodResolve):
		dst = append(dst, resolveResult...)
	case env.methodIs(methodToolsCall):
		dst = append(dst, toolResult...)
	case result != nil:
		dst = append(dst, result...)
	default:
		dst = append(dst, fixedResult...)
	}
	return append(dst, '}')
}
