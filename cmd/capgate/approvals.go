package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const approvalsAbout = `Lists, approves or denies capability requests waiting for human approval,
through a gateway's admin API. The policy's approval sections say who may
decide a request; nobody decides their own.
`

// adminFlags are the flags every approvals subcommand shares.
type adminFlags struct {
	admin, key *string
}

func newAdminFlags(fs *flag.FlagSet) adminFlags {
	return adminFlags{
		admin: fs.String("admin", "http://"+defaultAdminAddr, "the gateway's admin listener `URL`; HOST:PORT alone means http://"),
		key:   fs.String("key", "", "the approver's credential `KEY` (default $CAPGATE_ADMIN_KEY)"),
	}
}

// approvalsList is `capgate approvals list`.
func approvalsList(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("approvals list", flag.ContinueOnError)
	af := newAdminFlags(fs)
	status := fs.String("status", "", "list only requests in this `STATUS`: pending, approved, denied, expired or redeemed")
	principal := fs.String("principal", "", "list only the requests of this `PRINCIPAL`")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	q := url.Values{}
	for k, v := range map[string]string{"status": *status, "principal": *principal} {
		if v != "" {
			q.Set(k, v)
		}
	}
	path := "/admin/approvals"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return af.call(ctx, http.MethodGet, path, nil, e)
}

// approvalsDecide is `capgate approvals approve|deny ID --reason TEXT`.
func approvalsDecide(verb string) func(context.Context, []string, env) error {
	return func(ctx context.Context, args []string, e env) error {
		fs := flag.NewFlagSet("approvals "+verb, flag.ContinueOnError)
		af := newAdminFlags(fs)
		reason := fs.String("reason", "", "why, in `TEXT` (required; the requester sees a denial's)")
		pos, err := parsePositional(fs, args, 1, 1, "approval id")
		if err != nil {
			return err
		}
		if strings.TrimSpace(*reason) == "" {
			return usagef("--reason is required")
		}
		body, _ := json.Marshal(map[string]string{"reason": *reason})
		return af.call(ctx, http.MethodPost, "/admin/approvals/"+url.PathEscape(pos[0])+"/"+verb, body, e)
	}
}

// call sends one admin request and prints the JSON answer.
func (af adminFlags) call(ctx context.Context, method, path string, body []byte, e env) error {
	base, err := adminURL(*af.admin)
	if err != nil {
		return err
	}
	key := *af.key
	if key == "" {
		key = e.getenv("CAPGATE_ADMIN_KEY")
	}
	return adminRequest(ctx, method, base, path, key, body, e)
}

// adminRequest sends one request to the admin listener at base and prints
// its JSON answer; any status but 200 is an error naming it.
func adminRequest(ctx context.Context, method, base, path, key string, body []byte, e env) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w (is the gateway's admin listener at %s? pass --admin)", err, base)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(out))
	}
	fmt.Fprintf(e.stdout, "%s\n", bytes.TrimSpace(out))
	return nil
}
