package loadtest

import (
	"context"
	"fmt"
	"net/http"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/config"
)

// startReplicas starts replicas A and B of one gateway for the
// propagation figure: both on the lab's Redis under one fresh prefix
// (synced revocation store, Redis capability index), with one key set,
// as a deployment's replicas run.
func (l *Lab) startReplicas(ctx context.Context, o Options, policy string) error {
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		return fmt.Errorf("%w: replica keys: %w", ErrSetup, err)
	}
	rc := &config.Redis{URL: l.redisURL(o), Prefix: randomPrefix(), Timeout: config.Duration(redisTimeout),
		MaxStaleness: config.Duration(propagationStaleness), AllowNoPersistence: true}
	for _, r := range []**Capgate{&l.ReplicaA, &l.ReplicaB} {
		c, err := startCapgate(ctx, capgateOptions{variant: VariantSynced, upstreamURL: l.Upstream.URL,
			policyFile: policy, now: o.Now, client: &http.Client{Transport: l.setup}, redis: rc, keys: ks})
		if err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		*r = c
	}
	return nil
}
