package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// methodRevoke is the JSON-RPC method that revokes a capability.
const methodRevoke = "a2a/capabilities/revoke"

// codeRevoked is the JSON-RPC error code of a revoked capability.
const codeRevoked = -32043

// propagationStaleness is the replicas' max staleness: the bound within
// which every replica refuses a revoked capability even if pub/sub stalls.
const propagationStaleness = 2 * time.Second

// propagationLoad is how many callers keep replica B busy during the
// trials.
const propagationLoad = 8

// Propagation is how a revocation on replica A reaches replica B, both
// gateways on one Redis, measured under load on B.
type Propagation struct {
	// Trials is how many capabilities were revoked on A.
	Trials int
	// Load is how many callers invoked another capability on B
	// throughout, and LoadCalls how many calls they completed.
	Load      int
	LoadCalls int64
	// Refused summarises, per trial, the time from the start of the
	// revoke call on A until B's first refusal came back.
	Refused Latencies
	// Revoke summarises the revoke calls' own durations.
	Revoke Latencies
	// LateAllows counts calls on B that started after the revoke call
	// returned and were still allowed, and LateTrials the trials that
	// had any.
	LateAllows int
	LateTrials int
}

// MeasurePropagation revokes trials capabilities issued on the lab's
// replica A and, from the moment each revoke call returns, invokes the
// capability on replica B in a closed loop until B refuses it.
func MeasurePropagation(ctx context.Context, l *Lab, trials int) (*Propagation, error) {
	if l.ReplicaA == nil || l.ReplicaB == nil {
		return nil, fmt.Errorf("%w: the replicas are not running", ErrInvalidOptions)
	}
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: propagationLoad + 2}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	load := startLoad(ctx, client, l.ReplicaB, propagationLoad)
	p := &Propagation{Trials: trials, Load: propagationLoad}
	refused := make([]time.Duration, 0, trials)
	revoke := make([]time.Duration, 0, trials)
	for i := range trials {
		t, err := propagationTrial(ctx, client, l.ReplicaA, l.ReplicaB)
		if err != nil {
			cancel()
			load.wait()
			return nil, fmt.Errorf("loadtest: propagation trial %d: %w", i+1, err)
		}
		refused, revoke = append(refused, t.refused), append(revoke, t.revoke)
		p.LateAllows += t.late
		if t.late > 0 {
			p.LateTrials++
		}
	}
	cancel()
	if err := load.wait(); err != nil {
		return nil, fmt.Errorf("loadtest: propagation load on B: %w", err)
	}
	p.LoadCalls = load.calls.Load()
	p.Refused, p.Revoke = Summarize([][]time.Duration{refused}), Summarize([][]time.Duration{revoke})
	return p, nil
}

// trial is one revocation's figures.
type trial struct {
	refused, revoke time.Duration
	late            int
}

// propagationTrial issues a capability on a, checks that b allows it,
// revokes it on a, and invokes it on b until b refuses.
func propagationTrial(ctx context.Context, client *http.Client, a, b *Capgate) (trial, error) {
	body, err := post(ctx, client, a.Server.URL+agentPath, []byte(IssuanceBody))
	if err != nil {
		return trial{}, fmt.Errorf("issuance on A: %w", err)
	}
	c, err := parseIssued(body)
	if err != nil {
		return trial{}, err
	}
	invoke := InvokeBody(c)
	if code, err := call(ctx, client, b.Server.URL+agentPath, invoke); err != nil || code != 0 {
		return trial{}, fmt.Errorf("B refuses a capability issued on A (code %d): %w", code, err)
	}
	start := time.Now()
	if _, err := post(ctx, client, a.Server.URL+agentPath, revokeBody(c)); err != nil {
		return trial{}, fmt.Errorf("revoke on A: %w", err)
	}
	returned := time.Now()
	t := trial{revoke: returned.Sub(start)}
	for {
		code, err := call(ctx, client, b.Server.URL+agentPath, invoke)
		switch {
		case err != nil:
			return trial{}, fmt.Errorf("invoke on B: %w", err)
		case code == codeRevoked:
			t.refused = time.Since(start)
			return t, nil
		case code != 0:
			return trial{}, fmt.Errorf("B refused the revoked capability with code %d, not %d", code, codeRevoked)
		case time.Since(returned) > propagationStaleness+time.Second:
			return trial{}, fmt.Errorf("B still allows a capability revoked on A %v after the revoke returned", time.Since(returned))
		}
		t.late++
	}
}

// revokeBody is an a2a/capabilities/revoke of c.
func revokeBody(c Capability) []byte {
	type params struct {
		CapabilityID    string `json:"capabilityId"`
		CapabilityToken string `json:"capabilityToken"`
	}
	return rpcBody(methodRevoke, params{CapabilityID: c.ID, CapabilityToken: c.Token})
}

// call posts one JSON-RPC call as alice and returns its error code: 0
// for a result. err is for everything that is not a JSON-RPC answer.
func call(ctx context.Context, client *http.Client, url string, body []byte) (code int, err error) {
	// Bounded, so that a stalled replica fails the figure instead of
	// hanging it: every answer is due well within the staleness bound.
	ctx, cancel := context.WithTimeout(ctx, propagationStaleness+time.Second)
	defer cancel()
	status, b, err := exchange(ctx, client, url, body)
	if err != nil {
		return 0, err
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil || (out.Error == nil) == (out.Result == nil) {
		return 0, fmt.Errorf("status %d, not a JSON-RPC answer: %s", status, snippet(b))
	}
	if out.Error != nil {
		return out.Error.Code, nil
	}
	return 0, nil
}

// load is callers invoking one replica's own capability in closed loops.
type load struct {
	wg    sync.WaitGroup
	calls atomic.Int64
	mu    sync.Mutex
	err   error
}

// startLoad starts n callers on c until ctx ends.
func startLoad(ctx context.Context, client *http.Client, c *Capgate, n int) *load {
	l := &load{}
	body := InvokeBody(c.Cap)
	for range n {
		l.wg.Go(func() {
			for ctx.Err() == nil {
				if code, err := call(ctx, client, c.Server.URL+agentPath, body); (err != nil || code != 0) && ctx.Err() == nil {
					l.fail(fmt.Errorf("code %d: %w", code, err))
					return
				}
				l.calls.Add(1)
			}
		})
	}
	return l
}

func (l *load) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

// wait waits for the callers and returns the first failure.
func (l *load) wait() error {
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if errors.Is(l.err, context.Canceled) {
		return nil
	}
	return l.err
}
