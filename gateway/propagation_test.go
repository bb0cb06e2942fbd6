package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
)

// propagationTrials is how many revocations TestRevocationPropagation
// times per load level. Raise it, with -v, for the figure:
//
//	go test ./gateway -run TestRevocationPropagation -v -propagation-trials 500
var propagationTrials = flag.Int("propagation-trials", 20, "revocations TestRevocationPropagation times per load level")

// propagationStaleness is the replicas' max staleness: the bound within
// which a revocation must be seen everywhere, even if pub/sub stalls.
const propagationStaleness = 2 * time.Second

// TestRevocationPropagation revokes a capability on replica A and, from
// the moment the revoke call returns, has B invoke it in a closed loop
// until B refuses; first with B idle, then with B under load from other
// callers. It asserts that there is no late allow: no call B started
// after the revoke returned is allowed (the revoke waits for B to hold
// the revocation, see the revocation package doc). It logs the figures:
// the revoke call's duration on A, and the time from its return to B's
// first refusal (p50, p99, max; it includes one invoke round trip). Times
// are logged, never asserted: they depend on the machine.
func TestRevocationPropagation(t *testing.T) {
	srv := redistest.Start(t)
	a, b := replicas(t, srv, propagationStaleness)
	for _, workers := range []int{0, 8} {
		stop := loadReplica(t, b, a.aliceQ1(), workers)
		var lat, revokes []time.Duration
		late, lateTrials := 0, 0
		for trial := range *propagationTrials {
			c := a.aliceQ1()
			if r := b.invokeFirst("alice-dev-key", c); r.Error != nil {
				t.Fatalf("trial %d: a capability issued on A is refused on B: %+v", trial, r.Error)
			}
			called := time.Now()
			if _, r := a.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": c.ID}); r.Error != nil {
				t.Fatalf("revoke on A: %+v", r.Error)
			}
			returned := time.Now()
			revokes = append(revokes, returned.Sub(called))
			allowed := 0
			for r := b.invokeFirst("alice-dev-key", c); r.Error == nil; r = b.invokeFirst("alice-dev-key", c) {
				allowed++
				if time.Since(returned) > propagationStaleness+time.Second {
					t.Fatalf("trial %d: B still accepts a capability revoked on A after %v", trial, time.Since(returned))
				}
			}
			lat = append(lat, time.Since(returned))
			late += allowed
			if allowed > 0 {
				lateTrials++
			}
		}
		calls := stop()
		if late != 0 {
			t.Errorf("B under %d load workers: %d late allows in %d of %d trials, want none", workers, late, lateTrials, len(lat))
		}
		slices.Sort(lat)
		slices.Sort(revokes)
		t.Logf("B under %d load workers (%d calls during the trials): revoke call on A p50 %v, p99 %v, max %v; "+
			"refused on B after its return p50 %v, p99 %v, max %v (%d trials); late allows %d, in %d trials",
			workers, calls, revokes[len(revokes)/2], revokes[len(revokes)*99/100], revokes[len(revokes)-1],
			lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], len(lat), late, lateTrials)
	}
}

// loadReplica has workers goroutines invoke c on h in closed loops until
// the returned stop is called, which reports how many calls completed.
// A failed call is a test error: the load capability is never revoked.
func loadReplica(t *testing.T, h *harness, c issued, workers int) (stop func() int64) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "a2a/skill/invoke",
		"params": invokeParams("retrieve_document", c.ID, map[string]any{"resourceHandle": c.ResourceHandles[0].Handle})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: max(workers, 1)}}
	var calls atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := invokeOnce(ctx, client, h.srv.URL+"/a2a/documents", body); err != nil && ctx.Err() == nil {
					t.Errorf("load call: %v", err)
					return
				}
				calls.Add(1)
			}
		})
	}
	return func() int64 {
		cancel()
		wg.Wait()
		client.CloseIdleConnections()
		return calls.Load()
	}
}

// invokeOnce posts one invocation as alice and fails unless it is allowed.
func invokeOnce(ctx context.Context, client *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer alice-dev-key")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var r rpcResponse
	if err := json.Unmarshal(b, &r); err != nil || r.Error != nil {
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return nil
}
