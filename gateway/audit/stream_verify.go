package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// streamPage is how many entries one XRANGE reads.
const streamPage = 1000

// VerifyStream reads the stream at key from its start and verifies every
// chain in it. It allows what a stream legitimately shows: chains whose
// start was trimmed by MAXLEN, duplicates from retried deliveries, and
// declared gaps where a replica dropped events (reported in
// ChainReport.Gaps, not an error). Anything else fails as in Verify, with
// a *LineError naming the entry's position and id. Redis errors are
// returned wrapped, as technical failures.
//
// Gap entries are not authenticated: anyone who can write to the stream
// can declare a gap, so the gaps a report shows should match the drops
// the replicas counted.
func VerifyStream(ctx context.Context, client redis.UniversalClient, key string) (Report, error) {
	return VerifyStreamWith(ctx, client, key, VerifyOptions{})
}

// VerifyStreamWith is VerifyStream with options, for checkpoint keys
// (VerifyOptions.Keys); AllowTrimmedStart and AllowDuplicates are always
// on for a stream.
func VerifyStreamWith(ctx context.Context, client redis.UniversalClient, key string, opts VerifyOptions) (Report, error) {
	opts.AllowTrimmedStart, opts.AllowDuplicates = true, true
	v := NewVerifier(opts)
	start := "-"
	for {
		msgs, err := client.XRangeN(ctx, key, start, "+", streamPage).Result()
		if err != nil {
			return v.Report(), fmt.Errorf("audit: reading stream %q: %w", key, err)
		}
		for _, m := range msgs {
			if err := v.entry(m); err != nil {
				var le *LineError
				if errors.As(err, &le) {
					le.ID = m.ID
				}
				return v.Report(), err
			}
		}
		if len(msgs) < streamPage {
			return v.Report(), nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

// entry verifies one stream entry: an event line or a gap.
func (v *Verifier) entry(m redis.XMessage) error {
	if len(m.Values) == 1 {
		if s, ok := m.Values[StreamFieldLine].(string); ok {
			return v.Line([]byte(s))
		}
		if s, ok := m.Values[StreamFieldGap].(string); ok {
			chain, g, err := parseGap(s)
			if err != nil {
				v.pos++
				return &LineError{Line: v.pos, Err: err}
			}
			return v.gap(chain, g)
		}
	}
	v.pos++
	return &LineError{Line: v.pos, Err: fmt.Errorf("%w: stream entry has neither a %q nor a %q field alone",
		ErrMalformed, StreamFieldLine, StreamFieldGap)}
}

// parseGap parses a gap entry's value strictly.
func parseGap(s string) (string, Gap, error) {
	obj, err := parseObject([]byte(s))
	if err != nil {
		return "", Gap{}, err
	}
	chain, ok := obj["chain"].(string)
	after, aok := obj["after"].(json.Number)
	next, nok := obj["next"].(json.Number)
	if !ok || chain == "" || !aok || !nok || len(obj) != 3 {
		return "", Gap{}, fmt.Errorf("%w: gap entry needs exactly chain, after and next", ErrMalformed)
	}
	a, aerr := strconv.ParseUint(string(after), 10, 64)
	n, nerr := strconv.ParseUint(string(next), 10, 64)
	if aerr != nil || nerr != nil || n <= a || n-a < 2 {
		return "", Gap{}, fmt.Errorf("%w: gap entry needs integers with after+1 < next", ErrMalformed)
	}
	return chain, Gap{After: a, Next: n}, nil
}
