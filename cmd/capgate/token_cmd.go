package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/capgate/capgate/captoken"
)

const tokenAbout = `Prints a capability token's claims and header (as JSON with --json).
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
	unseal, json           bool
}

// tokenInspect is `capgate token inspect`.
func tokenInspect(ctx context.Context, args []string, e env) error {
	var f inspectFlags
	fset := flag.NewFlagSet("token inspect", flag.ContinueOnError)
	fset.StringVar(&f.keys, "keys", "", "verify the token with this key `FILE`")
	fset.StringVar(&f.issuer, "issuer", "", "with --keys, the expected `ISSUER` (default: the token's own, unchecked)")
	fset.StringVar(&f.audience, "audience", "", "with --keys, the expected `AUDIENCE`")
	fset.BoolVar(&f.json, "json", false, "print the report as JSON")
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
	if f.json {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		writeTokenReport(e.stdout, rep)
	}
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

// writeTokenReport writes the report for a person: one aligned line per
// claim that is set, times in RFC 3339, then the header and what was and
// was not checked.
func writeTokenReport(w io.Writer, rep *tokenReport) {
	c := rep.Claims
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label, value string) {
		if value != "" {
			fmt.Fprintf(tw, "%s\t%s\n", label, value)
		}
	}
	row("verification", rep.Verification.Status)
	row("capability", c.CapabilityID)
	row("parent", c.ParentCapabilityID)
	row("grant", c.Grant)
	row("operations", strings.Join(c.Operations, ", "))
	row("principal", c.Principal)
	row("holder", c.Holder)
	row("issuer", c.Issuer)
	row("audience", c.Audience)
	row("handles", strings.Join(c.Handles, ", "))
	row("purpose", c.Purpose)
	row("depth", fmt.Sprintf("%d of at most %d, attenuable: %v", c.Depth, c.MaxDepth, c.Attenuable))
	row("revocation id", c.RevocationID)
	row("ancestors", strings.Join(c.Ancestors, ", "))
	row("policy revision", c.PolicyRevision)
	row("issued", rep.Times["iat"])
	row("not before", rep.Times["nbf"])
	row("expires", rep.Times["exp"])
	row("header", headerLine(rep.Header))
	label := "passed"
	for _, p := range rep.Verification.Passed {
		row(label, p)
		label = ""
	}
	row("not checked", strings.Join(rep.Verification.NotChecked, ", "))
	row("error", rep.Verification.Error)
	label = "resources"
	for _, h := range slices.Sorted(maps.Keys(rep.Resources)) {
		row(label, h+" -> "+rep.Resources[h])
		label = ""
	}
	tw.Flush()
}

// headerLine is the token's header members as name=value, sorted.
func headerLine(h map[string]json.RawMessage) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		v := string(h[k])
		var s string
		if json.Unmarshal(h[k], &s) == nil {
			v = s
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}
