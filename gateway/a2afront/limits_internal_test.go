package a2afront

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/revocation/redistest"
)

// withLimits gives the fixture's front a limiter of events per minute
// (burst the same) and a live cap.
func (fx *fixture) withLimits(tb testing.TB, events, live int) {
	tb.Helper()
	r := ratelimit.Rate{Events: events, Period: time.Minute, Burst: events}
	l, err := ratelimit.New(ratelimit.Config{Issue: r, Attenuate: r, Invoke: r, MaxLiveCapabilities: live},
		platform.Runtime{Now: func() time.Time { return fx.now }})
	if err != nil {
		tb.Fatal(err)
	}
	fx.front.deps.Limits = l
}

// TestOverTheLimitIsRefused spends a principal's budget of each limit:
// the next call is rate_limited with the limit and a retryAfter, the
// upstream saw nothing of it, and another principal is unaffected.
func TestOverTheLimitIsRefused(t *testing.T) {
	const request = `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`
	tests := []struct {
		name, agent, method, params string
		limit                       ratelimit.Limit
	}{
		{"issue", "documents", jsonrpc.MethodCapabilitiesRequest, request, ratelimit.Issue},
		{"attenuate", "documents", jsonrpc.MethodCapabilitiesAttenuate, `{"capabilityId":"$CID"}`, ratelimit.Attenuate},
		{"invoke", "documents", jsonrpc.MethodSkillInvoke, `{"skill":"list_documents","capabilityId":"$CID","arguments":{}}`, ratelimit.Invoke},
		{"delegate", "summarizer", jsonrpc.MethodSendMessage, `{"message":{},"capabilities":["$CID"]}`, ratelimit.Attenuate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			capb := fx.issue(t)
			fx.withLimits(t, 2, 100)
			body := `{"jsonrpc":"2.0","id":1,"method":"` + tt.method + `","params":` + expandFuzzParams(tt.params, capb.ID, capb.Token, fx.now) + `}`
			for i := range 2 {
				if out := fx.front.decide(context.Background(), fx.call(t, aliceKey, tt.agent, body)); out.resp != nil && out.resp.Error != nil {
					t.Fatalf("call %d refused: %+v", i, out.resp.Error)
				}
			}
			before := len(fx.upstream.calls(""))
			out := fx.front.decide(context.Background(), fx.call(t, aliceKey, tt.agent, body))
			wantRateLimited(t, out, tt.limit)
			if got := fx.upstream.calls("")[before:]; len(got) != 0 {
				t.Errorf("upstream saw %d calls of a refused one", len(got))
			}
			if tt.limit == ratelimit.Issue {
				out = fx.front.decide(context.Background(), fx.call(t, bobKey, tt.agent, body))
				if out.resp != nil && out.resp.Error != nil && out.resp.Error.Code == jsonrpc.CodeRateLimited {
					t.Fatalf("bob is limited by alice's use: %+v", out.resp.Error)
				}
			}
		})
	}
}

// TestLiveCapabilityCapRefusesIssuance holds the cap's worth of live
// capabilities: the next issuance is refused before the agent is asked,
// and allowed again once one has expired.
func TestLiveCapabilityCapRefusesIssuance(t *testing.T) {
	fx := newFixture(t)
	fx.withLimits(t, 100, 2)
	fx.issue(t)
	fx.issue(t)
	before := len(fx.upstream.calls(""))
	out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
		`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"]}}`))
	wantRateLimited(t, out, ratelimit.Live)
	if got := fx.upstream.calls("")[before:]; len(got) != 0 {
		t.Errorf("upstream saw %d calls of a refused issuance", len(got))
	}
	fx.now = fx.now.Add(2 * time.Hour)
	fx.issue(t)
}

func wantRateLimited(t *testing.T, out outcome, limit ratelimit.Limit) {
	t.Helper()
	if out.resp == nil || out.resp.Error == nil {
		t.Fatalf("not refused: %+v", out)
	}
	e := out.resp.Error
	data, _ := e.Data.(map[string]any)
	if e.Code != jsonrpc.CodeRateLimited || e.Reason() != jsonrpc.ReasonRateLimited || data["limit"] != string(limit) {
		t.Fatalf("got %d %q %v, want rate_limited for %s", e.Code, e.Reason(), e.Data, limit)
	}
	if s, ok := data["retryAfter"].(int); !ok || s < 1 {
		t.Fatalf("retryAfter = %v, want whole seconds ≥ 1", data["retryAfter"])
	}
}

// TestLimiterStoreDownFailsClosed: with the limiter's Redis gone, an
// invocation is refused with the store-loss code and never forwarded.
func TestLimiterStoreDownFailsClosed(t *testing.T) {
	fx := newFixture(t)
	capb := fx.issue(t)
	srv := redistest.Start(t)
	l, err := ratelimit.New(ratelimit.Config{}, platform.Runtime{
		Redis: &platform.Redis{Client: srv.NewClient(&redis.Options{MaxRetries: -1}), Timeout: 200 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	fx.front.deps.Limits = l
	srv.Kill()
	before := len(fx.upstream.calls(""))
	out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
		`{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{"skill":"list_documents","capabilityId":"`+capb.ID+`","arguments":{}}}`))
	if out.resp == nil || out.resp.Error == nil || out.resp.Error.Code != jsonrpc.CodeRevocationUnavailable {
		t.Fatalf("got %+v, want -32049", out.resp)
	}
	if got := fx.upstream.calls("")[before:]; len(got) != 0 {
		t.Errorf("upstream saw %d calls", len(got))
	}
}
