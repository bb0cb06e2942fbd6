package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"
)

// runRevoke is `capgate revoke`: it asks a gateway's admin API to revoke
// a capability (and its descendants), a revocation id, or everything a
// principal was issued before a time. The admin credential comes from
// --key or CAPGATE_ADMIN_KEY.
func runRevoke(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("revoke", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	admin := fs.String("admin", "http://127.0.0.1:9090", "the gateway's admin listener URL")
	key := fs.String("key", "", "admin credential (default $CAPGATE_ADMIN_KEY)")
	capID := fs.String("capability", "", "capability id to revoke, with every descendant")
	rid := fs.String("revocation", "", "revocation id to revoke")
	principal := fs.String("principal", "", "revoke every capability of this principal issued before --before")
	before := fs.String("before", "", "RFC 3339 cutoff for --principal (default: now)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 2
	}
	body := map[string]any{}
	for k, v := range map[string]string{"capabilityId": *capID, "revocationId": *rid, "principal": *principal} {
		if v != "" {
			body[k] = v
		}
	}
	if len(body) != 1 {
		fmt.Fprintln(e.stderr, "capgate revoke: name exactly one of --capability, --revocation, --principal")
		return 2
	}
	if *before != "" {
		t, err := time.Parse(time.RFC3339, *before)
		if err != nil || *principal == "" {
			fmt.Fprintln(e.stderr, "capgate revoke: --before takes an RFC 3339 time and goes with --principal")
			return 2
		}
		body["before"] = t
	}
	if *key == "" {
		*key = e.getenv("CAPGATE_ADMIN_KEY")
	}
	return postRevoke(ctx, *admin, *key, body, e)
}

func postRevoke(ctx context.Context, admin, key string, body map[string]any, e env) int {
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, admin+"/admin/revoke", bytes.NewReader(b))
	if err != nil {
		fmt.Fprintln(e.stderr, "capgate revoke:", err)
		return 2
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(e.stderr, "capgate revoke:", err)
		return 1
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(e.stderr, "capgate revoke: HTTP %d: %s\n", resp.StatusCode, bytes.TrimSpace(out))
		return 1
	}
	fmt.Fprintf(e.stdout, "%s\n", bytes.TrimSpace(out))
	return 0
}
