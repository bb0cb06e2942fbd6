package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/revocation/redistest"
)

var errDown = errors.New("store down")

// downIndex is an index that can neither find nor keep a capability.
type downIndex struct{ capindex.Index }

func (downIndex) Get(context.Context, string) (capindex.Record, error) {
	return capindex.Record{}, errDown
}

func (downIndex) Put(context.Context, capindex.Record) error { return errDown }

// downApprovals is an approval store that cannot answer.
type downApprovals struct{ approval.Store }

func (downApprovals) Get(context.Context, string) (approval.Request, error) {
	return approval.Request{}, errDown
}

// withChecks rebuilds the front's decision core over index and the
// fixture's revocation store, as New builds it.
func (fx *fixture) withChecks(t *testing.T, index capindex.Index) {
	t.Helper()
	f := fx.front
	k, err := enforce.New(enforce.Deps{Index: index, Verifier: f.deps.Verifier, Revocations: fx.revocations, Fronted: f.fronts})
	if err != nil {
		t.Fatal(err)
	}
	f.checks = k
}

// TestStoreDownNamesTheStore: a call refused because a store cannot
// answer keeps -32049 and revocation_unavailable, and names in its
// message and data.detail the store that failed, and no other.
func TestStoreDownNamesTheStore(t *testing.T) {
	invoke := func(id string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{"skill":"list_documents","capabilityId":"` + id + `","arguments":{}}}`
	}
	tests := []struct {
		name  string
		down  func(t *testing.T, fx *fixture)
		body  func(id string) string
		store enforce.Store
	}{
		{"revocation store", func(t *testing.T, fx *fixture) { fx.revocations.Close() }, invoke, enforce.RevocationStore},
		{"capability index on invoke", func(t *testing.T, fx *fixture) { fx.withChecks(t, downIndex{}) }, invoke, enforce.CapabilityIndex},
		{"capability index on issue", func(t *testing.T, fx *fixture) { fx.front.deps.Index = downIndex{} }, func(string) string {
			return `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"]}}`
		}, enforce.CapabilityIndex},
		{"approval store", func(t *testing.T, fx *fixture) { fx.front.deps.Approvals = downApprovals{} }, func(string) string {
			return `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/approval/status","params":{"approvalId":"apr_1"}}`
		}, enforce.ApprovalStore},
		{"rate-limit store, asked first, with every store down", func(t *testing.T, fx *fixture) {
			fx.front.deps.Limits = downLimiter(t)
			fx.revocations.Close()
			fx.withChecks(t, downIndex{})
		}, invoke, enforce.RateLimitStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			capb := fx.issue(t)
			tt.down(t, fx)
			out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents", tt.body(capb.ID)))
			if out.resp == nil || out.resp.Error == nil {
				t.Fatalf("answered %+v with the %s down", out.resp, tt.store)
			}
			wire, _ := json.Marshal(out.resp.Error)
			t.Logf("%s", wire)
			e := out.resp.Error
			data, _ := e.Data.(map[string]any)
			if e.Code != jsonrpc.CodeRevocationUnavailable || data["reason"] != jsonrpc.ReasonRevocationUnavailable {
				t.Fatalf("%s: want -32049 revocation_unavailable", wire)
			}
			if data["detail"] != string(tt.store) || !strings.Contains(e.Message, tt.store.Noun()) {
				t.Errorf("%s: want the %s named in message and data.detail", wire, tt.store)
			}
			for _, other := range enforce.Stores() {
				if other != tt.store && strings.Contains(e.Message, other.Noun()) {
					t.Errorf("%s: names the %s, which did not fail first", wire, other)
				}
			}
		})
	}
}

// downLimiter is a limiter on a Redis that is gone.
func downLimiter(t *testing.T) *ratelimit.Limiter {
	t.Helper()
	srv := redistest.Start(t)
	l, err := ratelimit.New(ratelimit.Config{}, platform.Runtime{
		Redis: &platform.Redis{Client: srv.NewClient(&redis.Options{MaxRetries: -1}), Timeout: 200 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	return l
}
