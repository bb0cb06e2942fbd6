package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// Resource is one resource an agent names in its answer to the gateway's
// a2a/resources/resolve hook: its own id, collection, display name and
// attributes. The id never reaches the gateway's callers.
type Resource = sep.Resource

// ResolveFunc answers the gateway's resolution hook: the agent's resources
// that match q (q.Collection, or every collection when it is empty, and
// every q.Filter attribute exactly). The gateway keeps only what matches
// the query and the policy, so answering too broadly widens nothing.
//
// To refuse a query as invalid, return an error wrapping ErrInvalidQuery:
// it is answered as invalid params (-32602) with the error's text. A
// *jsonrpc.Error is answered as it is. Any other error is answered as an
// internal error (-32603) without its text.
type ResolveFunc func(ctx context.Context, q ResourceQuery) ([]Resource, error)

// ErrInvalidQuery is returned, wrapped, by a ResolveFunc that refuses a
// query as invalid; it matches jsonrpc.ErrInvalidParams.
var ErrInvalidQuery error = invalidQuery{}

type invalidQuery struct{}

func (invalidQuery) Error() string { return "client: invalid resource query" }
func (invalidQuery) Unwrap() error { return jsonrpc.ErrInvalidParams }

// ResolveHandler returns middleware that serves the gateway's resolution
// hook, a2a/resources/resolve, with fn, and hands every other request to
// next unchanged. It lets an agent that is not otherwise aware of
// capabilities have capabilities issued for its resources:
//
//	mux.Handle("POST /", client.ResolveHandler(resolve)(a2asrv.NewJSONRPCHandler(h)))
//
// It reads POST bodies of at most jsonrpc.DefaultLimits().MaxBodyBytes
// and checks them with the gateway's own JSON-RPC codec: a body that is
// not well-formed JSON, repeats a member name (also in a case variant),
// holds invalid UTF-8 or nests too deep is answered here with the codec's
// JSON-RPC error (HTTP 400), as the gateway would answer it. A larger
// body, another method, or a request that is not a valid JSON-RPC request
// goes to next with its bytes intact. The hook's params are decoded
// strictly (an unknown or case-variant member, or a filter value that is
// not a string, is invalid params); a resolve in a batch is refused; a
// resolve notification is not answered and fn is not called.
//
// The answer is checked before it is sent: each resource needs an id,
// unique in the answer, and valid UTF-8 in every string; null attributes
// are sent as {}; an answer larger than sep.MaxResolveAnswerBytes is an
// internal error, since the gateway would refuse it. The principal the
// gateway resolves for is available to fn through ResolvePrincipal.
// ResolveHandler panics if fn is nil.
func ResolveHandler(fn ResolveFunc) func(next http.Handler) http.Handler {
	if fn == nil {
		panic("client: ResolveHandler needs a ResolveFunc")
	}
	return func(next http.Handler) http.Handler {
		return &resolveHandler{fn: fn, next: next, lim: jsonrpc.DefaultLimits()}
	}
}

type resolveHandler struct {
	fn   ResolveFunc
	next http.Handler
	lim  jsonrpc.Limits
}

func (h *resolveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.lim.MaxBodyBytes+1))
	if err != nil {
		writeCodeError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "the request body could not be read")
		return
	}
	if int64(len(body)) > h.lim.MaxBodyBytes {
		// Larger than any resolution: the agent reads it whole.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		h.next.ServeHTTP(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	reqs, batch, err := jsonrpc.Decode(body, h.lim)
	switch {
	case err != nil:
		_ = jsonrpc.WriteResponse(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.ErrorFor(err)))
	case batch && slices.ContainsFunc(reqs, isResolve):
		writeCodeError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, sep.MethodResolve+" cannot be sent in a batch")
	case batch || !isResolve(reqs[0]):
		h.next.ServeHTTP(w, r)
	case reqs[0].IsNotification():
		w.WriteHeader(http.StatusNoContent)
	default:
		resp := h.answer(r.Context(), reqs[0])
		_ = jsonrpc.WriteResponse(w, http.StatusOK, resp)
	}
}

func isResolve(r jsonrpc.Request) bool { return r.Err == nil && r.Method == sep.MethodResolve }

func writeCodeError(w http.ResponseWriter, status int, id json.RawMessage, code int, detail string) {
	_ = jsonrpc.WriteResponse(w, status, jsonrpc.NewError(id, jsonrpc.NewCodeError(code, detail)))
}

// answer decodes the params, asks fn, and checks what it found.
func (h *resolveHandler) answer(ctx context.Context, req jsonrpc.Request) jsonrpc.Response {
	var p sep.ResolveParams
	if err := req.UnmarshalParams(&p); err != nil {
		return jsonrpc.NewError(req.ID, jsonrpc.ErrorFor(err))
	}
	found, err := h.fn(context.WithValue(ctx, principalKey{}, p.Principal), p.Query())
	if err != nil {
		return jsonrpc.NewError(req.ID, jsonrpc.ErrorFor(err))
	}
	result, err := encodeResolved(found, len(req.ID))
	if err != nil {
		return jsonrpc.NewError(req.ID, jsonrpc.NewCodeError(jsonrpc.CodeInternal, err.Error()))
	}
	return jsonrpc.NewResult(req.ID, result)
}

// encodeResolved checks found and encodes it as the hook's result, for a
// request whose id is idLen bytes long.
func encodeResolved(found []Resource, idLen int) (json.RawMessage, error) {
	out := sep.ResolveResult{Resources: make([]Resource, 0, len(found))}
	seen := make(map[string]bool, len(found))
	for i, r := range found {
		switch {
		case r.ID == "":
			return nil, fmt.Errorf("resolved resource %d has no id", i)
		case seen[r.ID]:
			return nil, fmt.Errorf("resolved resource %d repeats the id of an earlier one", i)
		case !validResource(r):
			return nil, fmt.Errorf("resolved resource %d holds invalid UTF-8", i)
		}
		seen[r.ID] = true
		if r.Attributes == nil {
			r.Attributes = map[string]string{}
		}
		out.Resources = append(out.Resources, r)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, errors.New("the resolved resources cannot be encoded")
	}
	if len(resolveEnvelope)+idLen+len(b) > sep.MaxResolveAnswerBytes {
		return nil, fmt.Errorf("the answer is larger than the gateway accepts (%d bytes)", sep.MaxResolveAnswerBytes)
	}
	return b, nil
}

// resolveEnvelope is the JSON-RPC envelope around a result, without its
// id: what an answer adds to the encoded result.
const resolveEnvelope = `{"jsonrpc":"2.0","id":,"result":}`

// validResource reports whether every string of r is valid UTF-8, which
// encoding/json would otherwise replace, changing the id silently.
func validResource(r Resource) bool {
	if !utf8.ValidString(r.ID) || !utf8.ValidString(r.Collection) || !utf8.ValidString(r.DisplayName) {
		return false
	}
	for k, v := range r.Attributes {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

type principalKey struct{}

// ResolvePrincipal returns, inside a ResolveFunc, the user principal the
// gateway resolves for (e.g. "user:alice@example.com"), or "" when the
// gateway named none. It is informative: the gateway applies policy to the
// answer whatever it is.
func ResolvePrincipal(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
