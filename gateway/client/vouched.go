package client

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/capgate/capgate/gateway/proxy"
)

// Vouched is the capability context the gateway vouches for on one call it
// forwards to an agent: the trusted headers it sets itself after removing
// any copy the caller sent (A2A-Capability-Id, -Principal, -Holder and
// -Operations). The resources are not in it: the gateway has already
// rewritten the capability's handles in the message to their real ids and
// refused any other id it knows.
type Vouched struct {
	// CapabilityID is the capability the call was allowed under; empty on
	// a call forwarded on the caller's own authority.
	CapabilityID string
	// Principal is the user the capability acts for (or, without a
	// capability, the caller).
	Principal string
	// Holder is the caller holding the capability.
	Holder string
	// Operations are the capability's operations.
	Operations []string
}

// Permits reports whether the call was allowed under a capability whose
// operations include op.
func (v Vouched) Permits(op string) bool {
	return v.CapabilityID != "" && op != "" && slices.Contains(v.Operations, op)
}

// header reads one trusted header. A header sent more than once is not
// the gateway's (it sets each exactly once): ok is false.
type header func(name string) (values []string, ok bool)

// readVouched reads the trusted headers through get. Any of them sent
// twice makes the whole context untrusted: ok is false.
func readVouched(get header) (v Vouched, ok bool) {
	one := func(name string) (string, bool) {
		vals, present := get(name)
		if !present || len(vals) == 0 {
			return "", true
		}
		return strings.TrimSpace(vals[0]), len(vals) == 1
	}
	var ops string
	fields := []struct {
		name string
		dst  *string
	}{
		{proxy.HeaderCapabilityID, &v.CapabilityID}, {proxy.HeaderCapabilityPrincipal, &v.Principal},
		{proxy.HeaderCapabilityHolder, &v.Holder}, {proxy.HeaderCapabilityOperations, &ops},
	}
	for _, f := range fields {
		val, single := one(f.name)
		if !single {
			return Vouched{}, false
		}
		*f.dst = val
	}
	for op := range strings.SplitSeq(ops, ",") {
		if op = strings.TrimSpace(op); op != "" {
			v.Operations = append(v.Operations, op)
		}
	}
	return v, v.CapabilityID != "" || v.Principal != "" || v.Holder != "" || len(v.Operations) > 0
}

type vouchedKey struct{}

// WithVouched returns ctx carrying v, for agents that read the gateway's
// headers some other way, and for tests that stand in for the gateway.
func WithVouched(ctx context.Context, v Vouched) context.Context {
	v.Operations = slices.Clone(v.Operations)
	return context.WithValue(ctx, vouchedKey{}, v)
}

// VouchedFrom returns the capability context ctx carries (VouchedHandler,
// VouchedInterceptor or WithVouched put it there); ok is false when the
// call carried none.
func VouchedFrom(ctx context.Context) (v Vouched, ok bool) {
	v, ok = ctx.Value(vouchedKey{}).(Vouched)
	v.Operations = slices.Clone(v.Operations)
	return v, ok
}

// RequireOperation refuses an action outside what the gateway vouched for:
// it returns nil only when ctx carries a capability context whose
// operations include op. Otherwise (no capability, or one without op) it
// returns an error matching ErrOperationNotVouched and
// ErrOperationNotPermitted. Call it in the executor once the action a
// message asks for is known, before acting:
//
//	if err := client.RequireOperation(ctx, "write"); err != nil {
//		return fail(err) // nothing written
//	}
func RequireOperation(ctx context.Context, op string) error {
	v, ok := VouchedFrom(ctx)
	switch {
	case !ok || v.CapabilityID == "":
		return fmt.Errorf("%w: the call carries no capability", ErrOperationNotVouched)
	case !v.Permits(op):
		return fmt.Errorf("%w: operation %q is not in the capability (it has %s)",
			ErrOperationNotVouched, op, strings.Join(v.Operations, ", "))
	}
	return nil
}

// VouchedHandler returns next with the gateway's trusted headers read into
// each request's context, where the agent's code finds them with
// VouchedFrom and RequireOperation. With a2asrv it is one line, and the
// executor's context carries the values (a2asrv keeps the request's
// context values for the execution it starts):
//
//	mux.Handle("POST /", client.VouchedHandler(a2asrv.NewJSONRPCHandler(h)))
//
// The headers are trusted only because the gateway removes any copy a
// caller sends: the agent must accept connections from the gateway alone.
// A request whose trusted headers are sent more than once carries no
// context. Any context already in the request's is replaced, so nothing
// but these headers decides it.
func VouchedHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), vouchedKey{}, nil)
		if v, ok := readVouched(func(name string) ([]string, bool) {
			vals, ok := r.Header[http.CanonicalHeaderKey(name)]
			return vals, ok
		}); ok {
			ctx = context.WithValue(ctx, vouchedKey{}, v)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// VouchedInterceptor is the a2asrv hook of VouchedHandler:
//
//	a2asrv.NewHandler(exec, a2asrv.WithCallInterceptor(client.VouchedInterceptor{}))
//
// It reads the trusted headers from the call's request metadata, for
// transports that fill it (a2agrpc does; a2asrv's JSON-RPC handler in
// a2a-go v0.3 does not, so JSON-RPC agents need VouchedHandler in front
// of it). A context VouchedHandler already read is kept.
type VouchedInterceptor struct {
	a2asrv.PassthroughCallInterceptor
}

var _ a2asrv.CallInterceptor = VouchedInterceptor{}

// Before attaches the capability context of callCtx's request metadata.
func (VouchedInterceptor) Before(ctx context.Context, callCtx *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, error) {
	if _, ok := VouchedFrom(ctx); ok || callCtx == nil {
		return ctx, nil
	}
	meta := callCtx.RequestMeta()
	if v, ok := readVouched(meta.Get); ok {
		return context.WithValue(ctx, vouchedKey{}, v), nil
	}
	return ctx, nil
}
