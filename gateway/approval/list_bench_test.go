package approval_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/revocation/redistest"
)

// BenchmarkRedisList lists 250 pending requests of 25 principals on a
// real Redis, as the console's page does.
func BenchmarkRedisList(b *testing.B) {
	srv := redistest.Start(b)
	backend, err := approval.Sealed(approval.NewRedis(srv.NewClient(nil), "capgate:", 5*time.Second, time.Now), recordKey)
	if err != nil {
		b.Fatal(err)
	}
	d := approval.NewDesk(backend, approval.Options{MaxPending: 10})
	ctx := context.Background()
	for i := range 250 {
		if _, err := d.Create(ctx, ask(fmt.Sprintf("user:p%d@example.com", i%25), i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if list, err := d.List(ctx, approval.Filter{Status: approval.StatusPending, Limit: 500}); err != nil || len(list) != 250 {
			b.Fatal(len(list), err)
		}
	}
}
