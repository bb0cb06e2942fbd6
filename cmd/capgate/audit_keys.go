package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/go-jose/go-jose/v4"
)

// maxJWKSBytes bounds a JWKS read from a file or URL.
const maxJWKSBytes = 1 << 20

// auditKeys returns the verification options for the checkpoint keys
// named by --keys or --jwks; no Keys when neither is given.
func auditKeys(ctx context.Context, a auditVerifyArgs) (audit.VerifyOptions, error) {
	opts := audit.VerifyOptions{CheckpointEvery: a.every}
	switch {
	case a.keyFile != "":
		ks, err := captoken.LoadKeySetFile(a.keyFile)
		if err != nil {
			return opts, fmt.Errorf("--keys: %w", err)
		}
		jwks := ks.JWKS()
		opts.Keys = &jwks
	case len(a.jwks) > 0:
		all := jose.JSONWebKeySet{}
		for _, src := range a.jwks {
			set, err := readJWKS(ctx, src)
			if err != nil {
				return opts, fmt.Errorf("--jwks %s: %w", src, err)
			}
			all.Keys = append(all.Keys, set.Keys...)
		}
		opts.Keys = &all
	}
	return opts, nil
}

// readJWKS reads a JWKS from an http(s) URL or a file, and keeps only its
// public keys.
func readJWKS(ctx context.Context, src string) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	var r io.Reader
	if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			return set, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return set, err
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode != http.StatusOK {
			return set, fmt.Errorf("HTTP status %s", resp.Status)
		}
		r = resp.Body
	} else {
		f, err := os.Open(src)
		if err != nil {
			return set, err
		}
		defer func() { _ = f.Close() }()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxJWKSBytes+1))
	if err != nil {
		return set, err
	}
	if len(data) > maxJWKSBytes {
		return set, fmt.Errorf("larger than %d bytes", maxJWKSBytes)
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return set, fmt.Errorf("not a JWKS: %w", err)
	}
	public := set.Keys[:0]
	for _, k := range set.Keys {
		if k.Valid() && k.IsPublic() {
			public = append(public, k)
		}
	}
	if len(public) == 0 {
		return set, fmt.Errorf("no public keys")
	}
	set.Keys = public
	return set, nil
}

// reportUnsigned says, for each chain, how many events no checkpoint
// covers yet.
func reportUnsigned(w io.Writer, rep audit.Report) {
	for _, c := range rep.Chains {
		if c.Unsigned == 0 {
			continue
		}
		fmt.Fprintf(w, "chain %q: %d events not covered by a checkpoint (signed through seq %d, last seq %d): "+
			"their truncation or rewriting cannot be detected from this source\n", c.Chain, c.Unsigned, c.Signed, c.Last)
	}
}
