package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/freeze"
)

const freezeAbout = `The emergency stop, through a gateway's admin API. freeze agent NAME stops
an agent, freeze principal ID a caller, on every replica: every live
capability held by or for it is revoked with its descendants, nothing new
is issued to or for it (-32047 grant_denied, data.detail "frozen") and
nothing of it is used, until unfreeze. --reason is required and goes to
the audit trail with the operator. frozen lists what is frozen.

The admin credential is --key, or else $` + adminKeyEnv + `; the quickstart's
is admin-dev-key.
`

// freezeSynopsis is the synopsis of freeze and unfreeze.
var freezeSynopsis = []string{"(agent NAME | principal ID) --reason TEXT [--admin URL] [--key KEY] [--json]"}

// newFreezeFlags defines the admin flags of the freeze commands.
func newFreezeFlags(fs *flag.FlagSet) adminFlags {
	return adminFlags{keyHint: "the quickstart's admin key is admin-dev-key",
		admin: fs.String("admin", "http://"+defaultAdminAddr, "the gateway's admin listener `URL`; HOST:PORT alone means http://"),
		key:   fs.String("key", "", "the admin credential `KEY` (default $"+adminKeyEnv+")"),
		json:  fs.Bool("json", false, "print the admin API's answer as one JSON line"),
	}
}

// runFreeze returns `capgate freeze` (verb "freeze") or `capgate
// unfreeze` (verb "unfreeze").
func runFreeze(verb string) func(context.Context, []string, env) error {
	return func(ctx context.Context, args []string, e env) error {
		fs := flag.NewFlagSet(verb, flag.ContinueOnError)
		af := newFreezeFlags(fs)
		reason := fs.String("reason", "", "why, in `TEXT` (required; recorded in the audit trail)")
		pos, err := parsePositional(fs, args, 2, 2, "agent NAME or principal ID")
		if err != nil {
			return err
		}
		if _, err := freeze.ParseKind(pos[0]); err != nil {
			return usagef("say agent NAME or principal ID, not %q", pos[0])
		}
		if strings.TrimSpace(*reason) == "" {
			return usagef("--reason is required")
		}
		body, _ := json.Marshal(map[string]string{"kind": pos[0], "name": pos[1], "reason": *reason})
		out, err := af.call(ctx, http.MethodPost, "/admin/"+verb, body, e)
		if err != nil {
			return err
		}
		return af.print(e.stdout, out, writeFrozen(verb))
	}
}

// writeFrozen says what a freeze or an unfreeze did.
func writeFrozen(verb string) func(io.Writer, adminAnswer) error {
	return func(w io.Writer, out adminAnswer) error {
		var a struct {
			Entry      freeze.Entry `json:"entry"`
			Revoked    int          `json:"revoked"`
			Unreadable []string     `json:"unreadable"`
			Truncated  bool         `json:"truncated"`
			// AsPrincipal is the principal frozen with an agent.
			AsPrincipal *struct {
				Entry freeze.Entry `json:"entry"`
			} `json:"asPrincipal"`
		}
		if err := json.Unmarshal(out, &a); err != nil {
			return fmt.Errorf("the admin API's answer is not a freeze: %w", err)
		}
		what := string(a.Entry.Kind) + " " + a.Entry.Name
		if verb == "unfreeze" {
			_, err := fmt.Fprintf(w, "unfroze %s; capabilities revoked when it was frozen stay revoked\n", what)
			return err
		}
		if _, err := fmt.Fprintf(w, "froze %s on every replica and revoked %s with their descendants\n", what, counted(a.Revoked, "live capability", "live capabilities")); err != nil {
			return err
		}
		if a.AsPrincipal != nil {
			fmt.Fprintf(w, "froze with it principal %s, which the agent calls out as (counted above)\n", a.AsPrincipal.Entry.Name)
		}
		if len(a.Unreadable) > 0 {
			fmt.Fprintf(w, "%s could not be read (refused while frozen, not revoked): %s\n",
				counted(len(a.Unreadable), "capability record", "capability records"), strings.Join(a.Unreadable, " "))
		}
		if a.Truncated {
			fmt.Fprintln(w, "the index listed its maximum: freeze again to revoke older capabilities (all are refused while frozen)")
		}
		return nil
	}
}

// runFrozen is `capgate frozen`: what is frozen, by whom and why.
func runFrozen(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("frozen", flag.ContinueOnError)
	af := newFreezeFlags(fs)
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	out, err := af.call(ctx, http.MethodGet, "/admin/frozen", nil, e)
	if err != nil {
		return err
	}
	return af.print(e.stdout, out, func(w io.Writer, out adminAnswer) error {
		var a struct {
			Frozen []freeze.Entry `json:"frozen"`
		}
		if err := json.Unmarshal(out, &a); err != nil {
			return fmt.Errorf("the admin API's answer is not a freeze list: %w", err)
		}
		if len(a.Frozen) == 0 {
			_, err := fmt.Fprintln(w, "nothing is frozen")
			return err
		}
		for _, f := range a.Frozen {
			if _, err := fmt.Fprintf(w, "%s %s\tsince %s by %s: %s\n", f.Kind, f.Name,
				f.At.UTC().Format(time.RFC3339), f.By, f.Reason); err != nil {
				return err
			}
		}
		return nil
	})
}

// counted is "1 one" or "N many".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
