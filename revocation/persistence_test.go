package revocation

import (
	"errors"
	"testing"

	"github.com/capgate/capgate/revocation/redistest"
)

func TestPersistence(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		want        Persistence
		wantRefusal error // CheckPersistence without the allowance
	}{
		{"none", nil, Persistence{Checked: true}, ErrNoPersistence},
		{"appendonly", []string{"--appendonly", "yes"}, Persistence{Checked: true, AOF: true}, nil},
		{"snapshots", []string{"--save", "60 1"}, Persistence{Checked: true, RDB: true}, nil},
		{"CONFIG disabled", []string{"--rename-command", "CONFIG", ""}, Persistence{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, tc.args...)
			r := startRedis(t, srv.Client, RedisOptions{})
			got, err := r.Persistence(t.Context())
			if err != nil || got != tc.want {
				t.Fatalf("Persistence = %+v, %v; want %+v", got, err, tc.want)
			}
			if err := r.CheckPersistence(t.Context(), false); !errors.Is(err, tc.wantRefusal) || (tc.wantRefusal == nil && err != nil) {
				t.Fatalf("CheckPersistence(allow=false) = %v, want %v", err, tc.wantRefusal)
			}
			if err := r.CheckPersistence(t.Context(), true); err != nil {
				t.Fatalf("CheckPersistence(allow=true) = %v", err)
			}
			if st := r.Stats(); st.Breaker != BreakerClosed || st.ConsecutiveFailures != 0 {
				t.Errorf("checking persistence counted as a failure: %+v", st)
			}
		})
	}
}

func TestPersistenceOnCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	r := startRedis(t, cluster.Client, RedisOptions{})
	if err := r.CheckPersistence(t.Context(), false); !errors.Is(err, ErrNoPersistence) {
		t.Fatalf("CheckPersistence on a cluster without persistence = %v, want ErrNoPersistence", err)
	}
	for _, n := range cluster.Nodes[:2] {
		if err := n.Client.ConfigSet(t.Context(), "appendonly", "yes").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := r.Persistence(t.Context()); err != nil || p.AOF {
		t.Fatalf("Persistence with one master without AOF = %+v, %v; want AOF false", p, err)
	}
}
