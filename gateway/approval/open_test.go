package approval_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
	"github.com/capgate/capgate/revocation/redistest"
)

func keySet(t *testing.T) *captoken.KeySet {
	t.Helper()
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestOpen: without Redis the desk works in memory; with Redis, replicas
// sharing the key set share requests, and a desk with another key set
// refuses the records (they are sealed); bad options are refused.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	mem, closeMem, err := approval.Open(nil, approval.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeMem()
	if _, err := mem.Create(ctx, sample()); err != nil {
		t.Fatalf("in memory: %v", err)
	}

	srv := redistest.Start(t)
	ks := keySet(t)
	ledger := revocation.NewMemory(revocation.MemoryOptions{})
	open := func(keys *captoken.KeySet) *approval.Desk {
		d, closeDesk, err := approval.Open(&approval.Config{}, approval.OpenOptions{Keys: keys, Ledger: ledger,
			Runtime: platform.Runtime{Redis: &platform.Redis{Client: srv.Client, Prefix: "t:", Timeout: 2 * time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closeDesk() })
		return d
	}
	a, b, stranger := open(ks), open(ks), open(keySet(t))
	r, err := a.Create(ctx, sample())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, r.ID); err != nil || got.Purpose != r.Purpose {
		t.Fatalf("another replica reads %+v %v", got, err)
	}
	if _, err := stranger.Get(ctx, r.ID); !errors.Is(err, approval.ErrForged) {
		t.Fatalf("a desk with other keys read the record: %v", err)
	}

	for name, tc := range map[string]struct {
		cfg     *approval.Config
		o       approval.OpenOptions
		wantErr error
	}{
		"redis without keys":      {nil, approval.OpenOptions{Runtime: platform.Runtime{Redis: &platform.Redis{Client: srv.Client, Timeout: time.Second}}, Ledger: ledger}, approval.ErrInvalid},
		"redis without a timeout": {nil, approval.OpenOptions{Runtime: platform.Runtime{Redis: &platform.Redis{Client: srv.Client}}, Keys: ks, Ledger: ledger}, approval.ErrInvalid},
		"redis without a ledger":  {nil, approval.OpenOptions{Runtime: platform.Runtime{Redis: &platform.Redis{Client: srv.Client, Timeout: time.Second}}, Keys: ks}, approval.ErrInvalid},
		"webhook without its secret": {&approval.Config{Webhook: &approval.WebhookConfig{URL: "https://hooks.example/a", SecretEnv: "NOPE"}},
			approval.OpenOptions{Runtime: platform.Runtime{Getenv: func(string) string { return "" }}}, approval.ErrWebhookConfig},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := approval.Open(tc.cfg, tc.o); !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
