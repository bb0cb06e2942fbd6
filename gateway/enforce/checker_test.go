package enforce_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/revocation"
)

// refused is the sentinel errors.Is matches any refusal of reason r with.
func refused(r enforce.Reason) error { return &enforce.Refusal{Reason: r} }

// asErr turns a nil *Refusal into a nil error, so that a test can compare
// it with errors.Is.
func asErr(r *enforce.Refusal) error {
	if r == nil {
		return nil
	}
	return r
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

func TestNewRequiresItsDeps(t *testing.T) {
	if _, err := enforce.New(enforce.Deps{}); err == nil {
		t.Fatal("New with no deps succeeded")
	}
}

func TestDecide(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	cap1 := fx.issue(t, fx.keys)
	other, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	forged := fx.issue(t, other)
	v, err := captoken.NewVerifier(fx.keys, captoken.VerifierConfig{Issuer: "capgate", Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Now: func() time.Time { return fx.now }})
	if err != nil {
		t.Fatal(err)
	}
	storeDown := fx.newChecker(t, fx.index, failingStore{}, v)
	indexDown := fx.newChecker(t, failingIndex{}, fx.revocations, v)
	id := cap1.claims.CapabilityID
	tests := []struct {
		name        string
		k           *enforce.Checker
		q           enforce.Request
		advance     time.Duration
		revokeFirst bool
		wantErr     error
		wantClaims  bool
	}{
		{name: "by id", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id}, wantClaims: true},
		{name: "by token", q: enforce.Request{Holder: alice, Audience: "documents", Token: cap1.token}, wantClaims: true},
		{name: "by id and token", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id, Token: cap1.token}, wantClaims: true},
		{name: "any fronted audience", q: enforce.Request{Holder: alice, CapabilityID: id}, wantClaims: true},
		{name: "with its operation", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id, Operation: "search"}, wantClaims: true},
		{name: "nothing named", q: enforce.Request{Holder: alice, Audience: "documents"}, wantErr: refused(enforce.CapabilityRequired)},
		{name: "unknown id", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: "cap_nope"}, wantErr: refused(enforce.CapabilityInvalid)},
		{name: "forged token", q: enforce.Request{Holder: alice, Audience: "documents", Token: forged.token}, wantErr: refused(enforce.CapabilityInvalid)},
		{name: "garbage token", q: enforce.Request{Holder: alice, Audience: "documents", Token: "a.b.c"}, wantErr: refused(enforce.CapabilityInvalid)},
		{name: "wrong audience", q: enforce.Request{Holder: alice, Audience: "notes", CapabilityID: id}, wantErr: refused(enforce.CapabilityInvalid)},
		{name: "id and token disagree", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: "cap_other", Token: cap1.token}, wantErr: refused(enforce.CapabilityInvalid)},
		{name: "wrong holder", q: enforce.Request{Holder: bob, Audience: "documents", CapabilityID: id}, wantErr: refused(enforce.HolderMismatch)},
		{name: "wrong holder is refused before the store is asked", k: storeDown, q: enforce.Request{Holder: bob, Audience: "documents", CapabilityID: id}, wantErr: refused(enforce.HolderMismatch)},
		{name: "store down fails closed", k: storeDown, q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id}, wantErr: refused(enforce.RevocationUnavailable)},
		{name: "index down fails closed", k: indexDown, q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id}, wantErr: refused(enforce.RevocationUnavailable)},
		{name: "expired", q: enforce.Request{Holder: alice, Audience: "documents", Token: cap1.token}, advance: 2 * time.Hour, wantErr: refused(enforce.CapabilityExpired)},
		{name: "operation not in it", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id, Operation: "update"}, wantErr: refused(enforce.OperationNotPermitted), wantClaims: true},
		// Last: it revokes the capability the cases above use.
		{name: "revoked", q: enforce.Request{Holder: alice, Audience: "documents", CapabilityID: id}, revokeFirst: true, wantErr: refused(enforce.CapabilityRevoked)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := fx.now
			fx.now = fx.now.Add(tt.advance)
			defer func() { fx.now = start }()
			k := tt.k
			if k == nil {
				k = fx.checker
			}
			if tt.revokeFirst {
				if err := fx.revocations.Revoke(ctx, cap1.claims.RevocationID, fx.now.Add(time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			claims, scope, r := k.Decide(ctx, tt.q)
			if !errors.Is(asErr(r), tt.wantErr) || (tt.wantErr == nil && r != nil) {
				t.Fatalf("Decide: %v, want %v", r, tt.wantErr)
			}
			if got := claims != nil; got != tt.wantClaims {
				t.Errorf("claims returned = %v, want %v", got, tt.wantClaims)
			}
			if tt.wantErr == nil && (scope == nil || len(scope.Resources) != 2 || scope.Claims != claims) {
				t.Errorf("scope = %+v, want the capability's two resources", scope)
			}
		})
	}
}

func TestCheckOperation(t *testing.T) {
	c := &captoken.Claims{Operations: []string{"retrieve", "search"}}
	tests := []struct {
		op      string
		wantErr error
	}{
		{"retrieve", nil},
		{"search", nil},
		{"update", refused(enforce.OperationNotPermitted)},
		{"", refused(enforce.OperationNotPermitted)},
	}
	for _, tt := range tests {
		if err := asErr(enforce.CheckOperation(c, tt.op)); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("CheckOperation(%q) = %v, want %v", tt.op, err, tt.wantErr)
		}
	}
	r := enforce.CheckOperation(c, "update")
	if m := r.Members(); m["reason"] != "operation_not_permitted" || m["operation"] != "update" {
		t.Errorf("members = %v, want the reason and the operation", m)
	}
}

func TestCheckHolder(t *testing.T) {
	c := &captoken.Claims{Principal: alice, Holder: "agent:summarizer"}
	for _, tt := range []struct {
		caller  string
		wantErr error
	}{
		{"agent:summarizer", nil},
		{alice, refused(enforce.HolderMismatch)},
		{bob, refused(enforce.HolderMismatch)},
	} {
		if err := asErr(enforce.CheckHolder(c, tt.caller)); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("CheckHolder(%s) = %v, want %v", tt.caller, err, tt.wantErr)
		}
	}
}

func TestRefusalIsByReason(t *testing.T) {
	r := &enforce.Refusal{Reason: enforce.CapabilityRevoked, Message: "capability revoked"}
	if !errors.Is(r, refused(enforce.CapabilityRevoked)) || errors.Is(r, refused(enforce.CapabilityExpired)) {
		t.Error("errors.Is does not match refusals by reason")
	}
	if got := r.Error(); got != "enforce: capability_revoked: capability revoked" {
		t.Errorf("Error() = %q", got)
	}
}
