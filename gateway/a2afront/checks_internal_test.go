package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/revocation"
)

// code is the refusal's code, or 0 for none.
func code(e *jsonrpc.Error) int {
	if e == nil {
		return 0
	}
	return e.Code
}

func testClaims() *captoken.Claims {
	return &captoken.Claims{
		CapabilityID: "cap_1", Principal: "user:alice@example.com", Holder: "agent:summarizer",
		Operations: []string{"retrieve", "search"}, Handles: []string{"h1", "h2"},
	}
}

func TestCheckOperation(t *testing.T) {
	tests := []struct {
		op   string
		want int
	}{
		{"retrieve", 0},
		{"search", 0},
		{"update", jsonrpc.CodeOperationNotPermitted},
		{"", jsonrpc.CodeOperationNotPermitted},
	}
	for _, tt := range tests {
		if got := code(checkOperation(testClaims(), tt.op)); got != tt.want {
			t.Errorf("checkOperation(%q) = %d, want %d", tt.op, got, tt.want)
		}
	}
}

func TestCheckHolderAndRevoker(t *testing.T) {
	c := testClaims()
	tests := []struct {
		caller             string
		holder, revoker    int
		wantHolderRefusal  bool
		wantRevokerRefusal bool
	}{
		{caller: "agent:summarizer"},
		{caller: "user:alice@example.com", wantHolderRefusal: true},
		{caller: "user:bob@example.com", wantHolderRefusal: true, wantRevokerRefusal: true},
	}
	for _, tt := range tests {
		if got := checkHolder(c, &authn.Principal{ID: tt.caller}) != nil; got != tt.wantHolderRefusal {
			t.Errorf("checkHolder(%s) refused = %v", tt.caller, got)
		}
		if got := checkRevoker(c, tt.caller) != nil; got != tt.wantRevokerRefusal {
			t.Errorf("checkRevoker(%s) refused = %v", tt.caller, got)
		}
	}
}

func TestPresentedToken(t *testing.T) {
	tests := []struct {
		name, header, params, want string
		wantCode                   int
	}{
		{name: "none"},
		{name: "header only", header: "h.t.s", want: "h.t.s"},
		{name: "params only", params: "p.t.s", want: "p.t.s"},
		{name: "both agree", header: "x.y.z", params: "x.y.z", want: "x.y.z"},
		{name: "both differ", header: "x.y.z", params: "a.b.c", wantCode: jsonrpc.CodeCapabilityInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			if tt.header != "" {
				r.Header.Set(proxy.HeaderCapabilityToken, tt.header)
			}
			got, e := presentedToken(r, tt.params)
			if got != tt.want || code(e) != tt.wantCode {
				t.Errorf("presentedToken = %q, %v; want %q, code %d", got, e, tt.want, tt.wantCode)
			}
		})
	}
}

func TestRewriteHandles(t *testing.T) {
	resources := resourceMap{{"h1", "reports/q1"}, {"h2", "reports/q2"}}
	tests := []struct {
		name     string
		args     string
		want     string
		wantCode int
	}{
		{"one handle", `{"resourceHandle":"h1","x":1}`, `{"resourceId":"reports/q1","x":1}`, 0},
		{"listed handles", `{"resourceHandles":["h2","h1"]}`, `{"resourceIds":["reports/q2","reports/q1"]}`, 0},
		{"no handle: all of the capability's", `{}`, `{"resourceIds":["reports/q1","reports/q2"]}`, 0},
		{"foreign handle", `{"resourceHandle":"h9"}`, "", jsonrpc.CodeResourceNotPermitted},
		{"one foreign among many", `{"resourceHandles":["h1","h9"]}`, "", jsonrpc.CodeResourceNotPermitted},
		{"empty list", `{"resourceHandles":[]}`, "", jsonrpc.CodeResourceNotPermitted},
		{"handle not a string", `{"resourceHandle":7}`, "", jsonrpc.CodeResourceNotPermitted},
		{"real id from the caller", `{"resourceId":"reports/q1"}`, "", jsonrpc.CodeResourceNotPermitted},
		{"real ids from the caller", `{"resourceIds":["reports/q1"]}`, "", jsonrpc.CodeResourceNotPermitted},
		{"case variant", `{"ResourceId":"reports/secret"}`, "", jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			out, e := rewriteHandles(testClaims(), resources, args)
			if code(e) != tt.wantCode {
				t.Fatalf("code = %d (%v), want %d", code(e), e, tt.wantCode)
			}
			if tt.wantCode != 0 {
				return
			}
			got, _ := json.Marshal(out)
			if string(got) != tt.want {
				t.Errorf("rewritten = %s, want %s", got, tt.want)
			}
		})
	}
}

// failingStore is a revocation store that cannot answer.
type failingStore struct{ revocation.Store }

var errStoreDown = errors.New("store down")

func (failingStore) Check(context.Context, revocation.Query) (revocation.Result, error) {
	return revocation.Result{}, errStoreDown
}

// failingIndex is an index that cannot answer.
type failingIndex struct{ capindex.Index }

func (failingIndex) Get(context.Context, string) (capindex.Record, error) {
	return capindex.Record{}, errStoreDown
}

func TestCheckerLoadAndLive(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	issued := fx.issue(t)
	alice, bob := fx.principal(t, aliceKey), fx.principal(t, bobKey)
	other, err := captoken.GenerateKeySet("EdDSA")
	if err != nil {
		t.Fatal(err)
	}
	h := captoken.NewHandle()
	forged, err := captoken.Mint(other, captoken.Claims{
		Issuer: "capgate", Principal: alice.ID, Holder: alice.ID, Audience: "documents",
		CapabilityID: issued.ID, Grant: "documents:read", Operations: []string{"retrieve"},
		Handles: []string{h}, Expiry: captoken.NewNumericDate(fx.now.Add(time.Minute)),
		IssuedAt: captoken.NewNumericDate(fx.now), RevocationID: captoken.NewRevocationID(),
	}, map[string]string{h: "reports/q1-financial"})
	if err != nil {
		t.Fatal(err)
	}
	k := fx.front.checks
	tests := []struct {
		name            string
		k               checker
		caller          *authn.Principal
		audience, id    string
		token           string
		wantCode        int
		revokeFirst     bool
		storeDown       bool
		advanceClockBy  time.Duration
		indexUnreadable bool
	}{
		{name: "by id", k: k, caller: alice, audience: "documents", id: issued.ID},
		{name: "by token", k: k, caller: alice, audience: "documents", token: issued.Token},
		{name: "by id and token", k: k, caller: alice, audience: "documents", id: issued.ID, token: issued.Token},
		{name: "nothing named", k: k, caller: alice, audience: "documents", wantCode: jsonrpc.CodeCapabilityRequired},
		{name: "unknown id", k: k, caller: alice, audience: "documents", id: "cap_nope", wantCode: jsonrpc.CodeCapabilityInvalid},
		{name: "forged token", k: k, caller: alice, audience: "documents", token: forged, wantCode: jsonrpc.CodeCapabilityInvalid},
		{name: "garbage token", k: k, caller: alice, audience: "documents", token: "a.b.c", wantCode: jsonrpc.CodeCapabilityInvalid},
		{name: "wrong audience", k: k, caller: alice, audience: "summarizer", id: issued.ID, wantCode: jsonrpc.CodeCapabilityInvalid},
		{name: "id and token disagree", k: k, caller: alice, audience: "documents", id: "cap_other", token: issued.Token, wantCode: jsonrpc.CodeCapabilityInvalid},
		{name: "wrong holder", k: k, caller: bob, audience: "documents", id: issued.ID, wantCode: jsonrpc.CodeHolderMismatch},
		{name: "wrong holder is refused before the store is asked", k: withStore(k, failingStore{}), caller: bob, audience: "documents", id: issued.ID, wantCode: jsonrpc.CodeHolderMismatch},
		{name: "store down fails closed", k: withStore(k, failingStore{}), caller: alice, audience: "documents", id: issued.ID, wantCode: jsonrpc.CodeRevocationUnavailable},
		{name: "index down fails closed", k: withIndex(k, failingIndex{}), caller: alice, audience: "documents", id: issued.ID, wantCode: jsonrpc.CodeRevocationUnavailable},
		{name: "expired", k: k, caller: alice, audience: "documents", token: issued.Token, advanceClockBy: 2 * time.Hour, wantCode: jsonrpc.CodeCapabilityExpired},
		{name: "revoked", k: k, caller: alice, audience: "documents", id: issued.ID, revokeFirst: true, wantCode: jsonrpc.CodeCapabilityRevoked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := fx.now
			fx.now = fx.now.Add(tt.advanceClockBy)
			defer func() { fx.now = start }()
			if tt.revokeFirst {
				if err := fx.revocations.Revoke(ctx, issued.RevocationID, fx.now.Add(time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			_, _, e := tt.k.usable(ctx, tt.caller, tt.audience, tt.id, tt.token)
			if code(e) != tt.wantCode {
				t.Errorf("usable: code %d (%v), want %d", code(e), e, tt.wantCode)
			}
		})
	}
}

func withStore(k checker, s revocation.Store) checker { k.revocations = s; return k }

func withIndex(k checker, i capindex.Index) checker { k.index = i; return k }
