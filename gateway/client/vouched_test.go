package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/proxy"
)

// TestVouchedHandler: the trusted headers reach the handler's context,
// and RequireOperation allows exactly the vouched operations of a call
// made under a capability.
func TestVouchedHandler(t *testing.T) {
	full := map[string][]string{
		proxy.HeaderCapabilityID: {"cap_1"}, proxy.HeaderCapabilityPrincipal: {"user:alice@example.com"},
		proxy.HeaderCapabilityHolder: {"user:alice@example.com"}, proxy.HeaderCapabilityOperations: {"read, list"},
	}
	with := func(name string, vals ...string) map[string][]string {
		h := map[string][]string{}
		for k, v := range full {
			h[k] = v
		}
		if vals == nil {
			delete(h, name)
		} else {
			h[name] = vals
		}
		return h
	}
	tests := []struct {
		name    string
		header  map[string][]string
		op      string
		wantOps []string
		wantErr error
	}{
		{"vouched operation", full, "read", []string{"read", "list"}, nil},
		{"second operation", full, "list", []string{"read", "list"}, nil},
		{"operation outside the capability", full, "write", []string{"read", "list"}, client.ErrOperationNotVouched},
		{"empty operation", full, "", []string{"read", "list"}, client.ErrOperationNotVouched},
		{"no headers", nil, "read", nil, client.ErrOperationNotVouched},
		{"no capability id", with(proxy.HeaderCapabilityID), "read", []string{"read", "list"}, client.ErrOperationNotVouched},
		{"principal only (authentication alone)", map[string][]string{proxy.HeaderCapabilityPrincipal: {"user:bob@example.com"}},
			"read", nil, client.ErrOperationNotVouched},
		{"operations sent twice", with(proxy.HeaderCapabilityOperations, "read", "write"), "write", nil, client.ErrOperationNotVouched},
		{"id sent twice", with(proxy.HeaderCapabilityID, "cap_1", "cap_2"), "read", nil, client.ErrOperationNotVouched},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got error
			var ops []string
			h := client.VouchedHandler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				got = client.RequireOperation(r.Context(), tt.op)
				v, _ := client.VouchedFrom(r.Context())
				ops = v.Operations
			}))
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			for k, vals := range tt.header {
				for _, v := range vals {
					req.Header.Add(k, v)
				}
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if !errors.Is(got, tt.wantErr) || (tt.wantErr == nil) != (got == nil) {
				t.Errorf("RequireOperation(%q) = %v, want %v", tt.op, got, tt.wantErr)
			}
			if tt.wantErr != nil && !errors.Is(got, client.ErrOperationNotPermitted) {
				t.Errorf("%v does not match ErrOperationNotPermitted", got)
			}
			if !slices.Equal(ops, tt.wantOps) {
				t.Errorf("operations %q, want %q", ops, tt.wantOps)
			}
		})
	}
}

// TestVouchedHandlerReplacesContext: a context put in the request's by
// code before the middleware cannot stand in for the headers.
func TestVouchedHandlerReplacesContext(t *testing.T) {
	var got error
	h := client.VouchedHandler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = client.RequireOperation(r.Context(), "write")
	}))
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req = req.WithContext(client.WithVouched(req.Context(), client.Vouched{CapabilityID: "cap_x", Operations: []string{"write"}}))
	h.ServeHTTP(httptest.NewRecorder(), req)
	if !errors.Is(got, client.ErrOperationNotVouched) {
		t.Errorf("RequireOperation = %v, want ErrOperationNotVouched", got)
	}
}

// recordingExecutor records what RequireOperation says in the executor.
type recordingExecutor struct {
	op  string
	got chan error
}

func (e *recordingExecutor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	e.got <- client.RequireOperation(ctx, e.op)
	ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCompleted, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

func (e *recordingExecutor) Cancel(context.Context, *a2asrv.RequestContext, eventqueue.Queue) error {
	return nil
}

// TestVouchedReachesTheExecutor: through a2asrv's JSON-RPC handler behind
// VouchedHandler, and through VouchedInterceptor on a transport that fills
// the request metadata, the executor sees the vouched operations.
func TestVouchedReachesTheExecutor(t *testing.T) {
	header := map[string][]string{proxy.HeaderCapabilityID: {"cap_1"}, proxy.HeaderCapabilityOperations: {"read"}}
	tests := []struct {
		name    string
		op      string
		wantErr error
	}{
		{"vouched", "read", nil},
		{"not vouched", "write", client.ErrOperationNotVouched},
	}
	for _, tt := range tests {
		t.Run("interceptor/"+tt.name, func(t *testing.T) {
			exec := &recordingExecutor{op: tt.op, got: make(chan error, 1)}
			h := a2asrv.NewHandler(exec, a2asrv.WithCallInterceptor(client.VouchedInterceptor{}))
			ctx, _ := a2asrv.WithCallContext(context.Background(), a2asrv.NewRequestMeta(header))
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hi"})
			if _, err := h.OnSendMessage(ctx, &a2a.MessageSendParams{Message: msg}); err != nil {
				t.Fatal(err)
			}
			if got := <-exec.got; !errors.Is(got, tt.wantErr) || (tt.wantErr == nil) != (got == nil) {
				t.Errorf("RequireOperation(%q) in the executor = %v, want %v", tt.op, got, tt.wantErr)
			}
		})
		t.Run("middleware/"+tt.name, func(t *testing.T) {
			exec := &recordingExecutor{op: tt.op, got: make(chan error, 1)}
			srv := httptest.NewServer(client.VouchedHandler(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec))))
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send",`+
				`"params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`))
			for k, v := range header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if got := <-exec.got; !errors.Is(got, tt.wantErr) || (tt.wantErr == nil) != (got == nil) {
				t.Errorf("RequireOperation(%q) in the executor = %v, want %v", tt.op, got, tt.wantErr)
			}
		})
	}
}
