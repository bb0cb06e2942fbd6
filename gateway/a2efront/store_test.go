package a2efront_test

import (
	"testing"

	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/a2efront/sessiontest"
	"github.com/capgate/capgate/revocation/redistest"
)

func TestMemoryStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T, clock *sessiontest.Clock) (a, b a2efront.SessionStore) {
		st := a2efront.NewMemoryStore(clock.Now)
		t.Cleanup(func() { _ = st.Close() })
		return st, st
	})
}

func TestRedisStoreConformance(t *testing.T) {
	srv := redistest.Start(t)
	sessiontest.Run(t, func(t *testing.T, clock *sessiontest.Clock) (a, b a2efront.SessionStore) {
		prefix := "test:" + t.Name() + ":"
		mk := func() a2efront.SessionStore {
			st, err := a2efront.NewRedisStore(srv.NewClient(nil), a2efront.RedisOptions{Prefix: prefix, Now: clock.Now, Timeout: redisTimeout})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		return mk(), mk()
	})
}
