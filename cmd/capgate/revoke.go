package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"
)

const revokeAbout = `Asks a gateway's admin API to revoke a capability with every descendant, a
revocation id, or every capability a principal was issued before a time,
and says what was revoked (one JSON line with --json).

The admin credential is --key, or else $` + adminKeyEnv + `; the quickstart's
is admin-dev-key. capgate demo --serve puts the admin listener where
--admin looks by default; with demo --serve --admin-addr, pass the same
address as --admin.
`

// runRevoke is `capgate revoke`: it asks a gateway's admin API to revoke
// a capability (and its descendants), a revocation id, or everything a
// principal was issued before a time.
func runRevoke(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("revoke", flag.ContinueOnError)
	af := adminFlags{keyHint: "the quickstart's admin key is admin-dev-key",
		admin: fs.String("admin", "http://"+defaultAdminAddr, "the gateway's admin listener `URL`; HOST:PORT alone means http://"),
		key:   fs.String("key", "", "the admin credential `KEY` (default $"+adminKeyEnv+")"),
		json:  fs.Bool("json", false, "print the admin API's answer as one JSON line"),
	}
	capID := fs.String("capability", "", "revoke the capability `ID` and every descendant")
	rid := fs.String("revocation", "", "revoke the revocation `ID`")
	principal := fs.String("principal", "", "revoke every capability of the `PRINCIPAL` issued before --before")
	before := fs.String("before", "", "the `TIME` (RFC 3339) before which --principal's capabilities are revoked (default: now)")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	body := map[string]any{}
	for k, v := range map[string]string{"capabilityId": *capID, "revocationId": *rid, "principal": *principal} {
		if v != "" {
			body[k] = v
		}
	}
	if len(body) != 1 {
		return usagef("name exactly one of --capability, --revocation, --principal")
	}
	if *before != "" {
		t, err := time.Parse(time.RFC3339, *before)
		if err != nil || *principal == "" {
			return usagef("--before takes an RFC 3339 time and goes with --principal")
		}
		body["before"] = t
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	out, err := af.call(ctx, http.MethodPost, "/admin/revoke", b, e)
	if err != nil {
		return err
	}
	return af.print(e.stdout, out, writeRevoked)
}

// writeRevoked says what the admin API revoked.
func writeRevoked(w io.Writer, out adminAnswer) error {
	var a struct {
		CapabilityID string    `json:"capabilityId"`
		RevocationID string    `json:"revocationId"`
		Principal    string    `json:"principal"`
		Before       time.Time `json:"before"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return fmt.Errorf("the admin API's answer is not a revocation: %w", err)
	}
	var err error
	switch {
	case a.CapabilityID != "":
		_, err = fmt.Fprintf(w, "revoked capability %s and every capability derived from it (revocation id %s)\n", a.CapabilityID, a.RevocationID)
	case a.Principal != "":
		_, err = fmt.Fprintf(w, "revoked every capability of %s issued before %s\n", a.Principal, a.Before.UTC().Format(time.RFC3339))
	default:
		_, err = fmt.Fprintf(w, "revoked revocation id %s\n", a.RevocationID)
	}
	return err
}
