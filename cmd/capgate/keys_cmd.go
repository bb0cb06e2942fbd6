package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/go-jose/go-jose/v4"
)

const keysGenerateAbout = `Without --rotate, writes a new key set (signing + sealing keys) to
FILE, which must not exist, in a directory that must; with --if-absent an
existing FILE is left as it is and is not an error (for an init container
that runs on every start). With --rotate it loads FILE and publishes fresh
keys: they verify at once but sign nothing until "keys activate". Roll the
file out to every replica between the steps. --rotate --activate does both
at once, for a single replica or a restart of all replicas together.

FILE holds PRIVATE keys and is rewritten atomically with mode 0600.
`

const keysActivateAbout = `Makes the published key KID sign; the keys active until then are kept,
retired now, so the tokens they signed keep verifying. A KID that starts
with "-" goes after "--".

FILE holds PRIVATE keys and is rewritten atomically with mode 0600.
`

const keysPruneAbout = `Removes the keys retired more than DURATION ago (all of them, or the KIDs
given); pass the longest capability lifetime (capabilities.max_ttl). It
never removes the active or a published key. A KID that starts with "-"
goes after "--".

FILE holds PRIVATE keys and is rewritten atomically with mode 0600.
`

const keysHashAbout = `Prints the config hash of a dev API key (authn.dev_keys[].hash). A KEY
that starts with "-", or is "help", goes after "--".
`

// keysGenerate is `capgate keys generate`; the clock gives the retirement
// time recorded by --rotate.
func keysGenerate(_ context.Context, args []string, e env) error {
	fset := flag.NewFlagSet("keys generate", flag.ContinueOnError)
	out := fset.String("out", "", "the key `FILE` to write (mode 0600)")
	algName := fset.String("alg", string(jose.EdDSA), "the signature algorithm `ALG`: EdDSA or ES256")
	rotate := fset.Bool("rotate", false, "publish fresh keys in an existing FILE")
	activate := fset.Bool("activate", false, "with --rotate, activate the fresh keys at once")
	ifAbsent := fset.Bool("if-absent", false, "leave an existing FILE as it is, and succeed")
	if _, err := parsePositional(fset, args, 0, 0, ""); err != nil {
		return err
	}
	alg := jose.SignatureAlgorithm(*algName)
	switch {
	case *out == "":
		return usagef("--out FILE is required")
	case alg != jose.EdDSA && alg != jose.ES256:
		return usagef("--alg %q: want EdDSA or ES256", *algName)
	case *rotate && *ifAbsent:
		return usagef("--rotate and --if-absent exclude each other")
	case *activate && !*rotate:
		return usagef("--activate goes with --rotate")
	}
	if _, err := os.Lstat(*out); err == nil && *ifAbsent {
		fmt.Fprintf(e.stdout, "%s exists; left as it is\n", *out)
		return nil
	}
	algSet := false
	fset.Visit(func(f *flag.Flag) { algSet = algSet || f.Name == "alg" })

	var ks *captoken.KeySet
	var err error
	if *rotate {
		ks, err = keysRotate(*out, alg, algSet, *activate, e.now())
	} else {
		ks, err = keysCreate(*out, alg)
	}
	if err == nil {
		err = ks.SaveFile(*out)
	}
	if err != nil {
		return err
	}
	keysReport(e.stdout, *out, ks)
	return nil
}

func keysCreate(path string, alg jose.SignatureAlgorithm) (*captoken.KeySet, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%s already exists; use --rotate to rotate its keys", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return captoken.GenerateKeySet(alg)
}

// keysRotate publishes fresh keys in the key file, and with activate makes
// them active at once. Without --alg the algorithm stays the active key's.
func keysRotate(path string, alg jose.SignatureAlgorithm, algSet, activate bool, now time.Time) (*captoken.KeySet, error) {
	ks, err := captoken.LoadKeySetFile(path)
	if err != nil {
		return nil, err
	}
	if !activate {
		if !algSet {
			alg = jose.SignatureAlgorithm(ks.Keys()[0].Algorithm)
		}
		return ks, ks.Publish(alg)
	}
	if algSet {
		return ks, ks.RotateAlgorithm(now, alg)
	}
	return ks, ks.Rotate(now)
}

func keysReport(w io.Writer, path string, ks *captoken.KeySet) {
	fmt.Fprintf(w, "wrote %s (mode 0600, contains private keys)\n", path)
	for _, k := range ks.Keys() {
		role, state := "signing", "active"
		if k.Sealing {
			role = "sealing"
		}
		switch {
		case k.Published:
			state = "published: verifies, does not sign until activated"
		case !k.Active:
			state = "previous, retired " + k.Retired.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  %-7s %-6s %s (%s)\n", role, k.Algorithm, k.KeyID, state)
	}
}

const tokenAbout = `Prints a capability token's header and claims as JSON.
Without --keys the output is UNVERIFIED: anyone can write a token that
says anything. With --keys, the token is verified against that key file
and the checks that passed are listed. Revocation is never checked here. TOKEN "-" or no TOKEN
reads the token from standard input.
`

// tokenReport is the JSON printed by `capgate token inspect`.
type tokenReport struct {
	Verification tokenVerification          `json:"verification"`
	Header       map[string]json.RawMessage `json:"header"`
	Claims       *captoken.Claims           `json:"claims"`
	Times        map[string]string          `json:"times"`
	Resources    map[string]string          `json:"resources,omitempty"`
}

type tokenVerification struct {
	Status     string   `json:"status"` // "VERIFIED" or "UNVERIFIED"
	Passed     []string `json:"passed,omitempty"`
	NotChecked []string `json:"not_checked"`
	Error      string   `json:"error,omitempty"`
}

type inspectFlags struct {
	keys, issuer, audience string
	unseal                 bool
}

// tokenInspect is `capgate token inspect`.
func tokenInspect(ctx context.Context, args []string, e env) error {
	var f inspectFlags
	fset := flag.NewFlagSet("token inspect", flag.ContinueOnError)
	fset.StringVar(&f.keys, "keys", "", "verify the token with this key `FILE`")
	fset.StringVar(&f.issuer, "issuer", "", "with --keys, the expected `ISSUER` (default: the token's own, unchecked)")
	fset.StringVar(&f.audience, "audience", "", "with --keys, the expected `AUDIENCE`")
	fset.BoolVar(&f.unseal, "unseal", false, "with --keys, also print the sealed handle -> resource-id map")
	pos, err := parsePositional(fset, args, 0, 1, "TOKEN")
	if err != nil {
		return err
	}
	if f.keys == "" && (f.unseal || f.issuer != "" || f.audience != "") {
		return usagef("--issuer, --audience and --unseal need --keys")
	}
	token, err := tokenArg(append(pos, "")[0], e.stdin)
	if err != nil {
		return err
	}
	claims, header, err := captoken.UnsafeClaimsWithoutVerification(token)
	if err != nil {
		return fmt.Errorf("cannot decode token: %w", err)
	}
	rep := &tokenReport{Header: header.Raw, Claims: claims, Times: tokenTimes(claims)}
	var failed error
	if f.keys == "" {
		rep.Verification = tokenVerification{Status: "UNVERIFIED",
			NotChecked: []string{"signature", "key", "issuer", "audience", "expiry", "revocation"}}
	} else if err := verifyForInspect(ctx, f, token, claims, header, e.now(), rep); err != nil {
		failed = fmt.Errorf("VERIFICATION FAILED: %w", err)
	}
	if rep.Verification.Status == "UNVERIFIED" {
		fmt.Fprintln(e.stderr, "UNVERIFIED: these contents were not verified; do not trust them.")
	} else {
		fmt.Fprintf(e.stderr, "VERIFIED with %s; revocation NOT checked.\n", f.keys)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n", b)
	return failed
}

// tokenArg returns the token from the argument, or from stdin for "" or "-".
func tokenArg(arg string, stdin io.Reader) (string, error) {
	if arg != "" && arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 4*captoken.MaxTokenSize))
	if err != nil {
		return "", fmt.Errorf("reading token from stdin: %w", err)
	}
	return string(bytes.TrimSpace(data)), nil
}

// verifyForInspect verifies token with the key file and fills the report's
// verification (and resources, with --unseal).
func verifyForInspect(ctx context.Context, f inspectFlags, token string, unverified *captoken.Claims,
	header *captoken.Header, now time.Time, rep *tokenReport) error {
	rep.Verification = tokenVerification{Status: "UNVERIFIED", NotChecked: []string{"revocation"}}
	ks, err := captoken.LoadKeySetFile(f.keys)
	if err != nil {
		rep.Verification.Error = err.Error()
		return err
	}
	issuer := f.issuer
	if issuer == "" {
		issuer = unverified.Issuer
		rep.Verification.NotChecked = append(rep.Verification.NotChecked, "issuer (taken from the token; pass --issuer)")
	}
	v, err := captoken.NewVerifier(ks, captoken.VerifierConfig{Issuer: issuer, Algorithms: ks.Algorithms(),
		Now: func() time.Time { return now }})
	if err == nil {
		_, err = v.Verify(ctx, token, captoken.Expected{Audience: f.audience})
	}
	if err != nil {
		rep.Verification.Error = err.Error()
		return err
	}
	rep.Verification.Status = "VERIFIED"
	rep.Verification.Passed = inspectPassed(f, header, now)
	if f.audience == "" {
		rep.Verification.NotChecked = append(rep.Verification.NotChecked, "audience (pass --audience)")
	}
	if f.unseal {
		if rep.Resources, err = v.Unseal(unverified); err != nil {
			rep.Verification.Error = err.Error()
			return err
		}
	}
	return nil
}

func inspectPassed(f inspectFlags, header *captoken.Header, now time.Time) []string {
	passed := []string{
		fmt.Sprintf("signature (alg %s, kid %s, key file %s)", header.Algorithm, header.KeyID, f.keys),
		"header (typ cap+jwt; no jwk, jku, x5u, x5c or crit)",
		"claims (canonical, required claims present, depth within max depth)",
		"time (exp, nbf, iat at " + now.UTC().Format(time.RFC3339) + ")",
	}
	if f.issuer != "" {
		passed = append(passed, "issuer ("+f.issuer+")")
	}
	if f.audience != "" {
		passed = append(passed, "audience ("+f.audience+")")
	}
	return passed
}

func tokenTimes(c *captoken.Claims) map[string]string {
	out := map[string]string{}
	for name, d := range map[string]captoken.NumericDate{"exp": c.Expiry, "nbf": c.NotBefore, "iat": c.IssuedAt} {
		if d != 0 {
			out[name] = d.Time().Format(time.RFC3339)
		}
	}
	return out
}
