package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const revokeAbout = `Asks a gateway's admin API to revoke a capability with every descendant, a
revocation id, or every capability a principal was issued before a time.
capgate demo --serve puts the admin listener where --admin looks by default.
`

// runRevoke is `capgate revoke`: it asks a gateway's admin API to revoke
// a capability (and its descendants), a revocation id, or everything a
// principal was issued before a time. The admin credential comes from
// --key or CAPGATE_ADMIN_KEY.
func runRevoke(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("revoke", flag.ContinueOnError)
	admin := fs.String("admin", "http://"+defaultAdminAddr, "the gateway's admin listener `URL`; HOST:PORT alone means http://")
	key := fs.String("key", "", "the admin credential `KEY` (default $CAPGATE_ADMIN_KEY)")
	capID := fs.String("capability", "", "revoke the capability `ID` and every descendant")
	rid := fs.String("revocation", "", "revoke the revocation `ID`")
	principal := fs.String("principal", "", "revoke every capability of the `PRINCIPAL` issued before --before")
	before := fs.String("before", "", "the `TIME` (RFC 3339) before which --principal's capabilities are revoked (default: now)")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	base, err := adminURL(*admin)
	if err != nil {
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
	if *key == "" {
		*key = e.getenv("CAPGATE_ADMIN_KEY")
	}
	return postRevoke(ctx, base, *key, body, e)
}

// adminURL accepts http(s)://HOST:PORT[/prefix] or a bare HOST:PORT, which
// means plain http.
func adminURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usagef("--admin %q: want the admin listener as http://HOST:PORT or HOST:PORT", s)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

func postRevoke(ctx context.Context, admin, key string, body map[string]any, e env) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return adminRequest(ctx, http.MethodPost, admin, "/admin/revoke", key, b, e)
}
