package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/capgate/capgate/gateway/approval"
)

const approvalsAbout = `Lists, approves or denies capability requests waiting for human approval,
through a gateway's admin API. The policy's approval sections say who may
decide a request; nobody decides their own. The answer is a table, or one
JSON line with --json.

The credential is the approver's: --key, or else $` + adminKeyEnv + `; in the
quickstart, dave-dev-key decides carol's HR writes.
`

// approverHint names the quickstart's approver, for the message when no
// credential was given.
const approverHint = "the quickstart's approver key is dave-dev-key"

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
	out, err := af.call(ctx, http.MethodGet, path, nil, e)
	if err != nil {
		return err
	}
	return af.print(e.stdout, out, func(w io.Writer, out adminAnswer) error { return writeApprovals(w, e.stderr, out) })
}

// approvalsDecide is `capgate approvals approve|deny ID --reason TEXT`.
func approvalsDecide(verb string) func(context.Context, []string, env) error {
	return func(ctx context.Context, args []string, e env) error {
		fs := flag.NewFlagSet("approvals "+verb, flag.ContinueOnError)
		af := newAdminFlags(fs)
		reason := fs.String("reason", "", "why, in `TEXT` (required; the requester sees a denial's)")
		hash := fs.String("action-hash", "", "decide only if the request holds this action `HASH` (sha256:…, as approvals list --json shows it)")
		pos, err := parsePositional(fs, args, 1, 1, "approval id")
		if err != nil {
			return err
		}
		if strings.TrimSpace(*reason) == "" {
			return usagef("--reason is required")
		}
		decision := map[string]string{"reason": *reason}
		if *hash != "" {
			decision["actionHash"] = *hash
		}
		body, _ := json.Marshal(decision)
		out, err := af.call(ctx, http.MethodPost, "/admin/approvals/"+url.PathEscape(pos[0])+"/"+verb, body, e)
		if err != nil {
			return err
		}
		return af.print(e.stdout, out, writeDecided)
	}
}

// newAdminFlags defines the flags every approvals subcommand shares.
func newAdminFlags(fs *flag.FlagSet) adminFlags {
	return adminFlags{keyHint: approverHint,
		admin: fs.String("admin", "http://"+defaultAdminAddr, "the gateway's admin listener `URL`; HOST:PORT alone means http://"),
		key:   fs.String("key", "", "the approver's credential `KEY` (default $"+adminKeyEnv+")"),
		json:  fs.Bool("json", false, "print the admin API's answer as one JSON line"),
	}
}

// writeApprovals writes the listed requests as a table; the ids of stored
// requests that failed their integrity check go to warn.
func writeApprovals(w, warn io.Writer, out adminAnswer) error {
	var a struct {
		Approvals []approval.Shown `json:"approvals"`
		Forged    []string         `json:"forged"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return fmt.Errorf("the admin API's answer is not a list of approvals: %w", err)
	}
	if len(a.Forged) > 0 {
		fmt.Fprintf(warn, "warning: %s failed the integrity check, not listed: %s\n",
			plural(len(a.Forged), "stored request"), strings.Join(a.Forged, ", "))
	}
	if len(a.Approvals) == 0 {
		_, err := fmt.Fprintln(w, "no approval requests")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tREQUESTER\tAGENT\tGRANTS\tRESOURCES\tTTL\tDEADLINE\tPURPOSE")
	for _, r := range a.Approvals {
		grants, resources, ttls := approvalGrants(r)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Principal, r.Agent,
			grants, resources, ttls, r.Deadline.UTC().Format(time.RFC3339), r.Purpose)
	}
	return tw.Flush()
}

// approvalGrants renders a request's grants, the display names of their
// resources and their lifetimes, each a comma-separated list.
func approvalGrants(r approval.Shown) (grants, resources, ttls string) {
	var g, res, t []string
	for _, gr := range r.Grants {
		g = append(g, gr.Grant.Grant)
		for _, x := range gr.Resources {
			if !slices.Contains(res, x.DisplayName) {
				res = append(res, x.DisplayName)
			}
		}
		if d := gr.TTL; !slices.Contains(t, d) {
			t = append(t, d)
		}
	}
	if len(res) == 0 {
		res = []string{"-"}
	}
	return strings.Join(g, ","), strings.Join(res, ","), strings.Join(t, ",")
}

// writeDecided says how a request was decided.
func writeDecided(w io.Writer, out adminAnswer) error {
	var r approval.Shown
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("the admin API's answer is not an approval: %w", err)
	}
	grants, _, _ := approvalGrants(r)
	_, err := fmt.Fprintf(w, "%s %s: %s for %s on %s, by %s: %s\n", r.ID, r.Status, grants, r.Principal, r.Agent, r.DecidedBy, r.Reason)
	if err == nil && r.Status == approval.StatusApproved {
		_, err = fmt.Fprintf(w, "%s may redeem it until %s\n", r.Principal, r.Deadline.UTC().Format(time.RFC3339))
	}
	return err
}
