package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/capgate/capgate/policy/replay"
)

// policyReplayChanges is the exit status of `policy replay` when a
// recorded decision would change.
const policyReplayChanges = 3

var policyReplaySynopsis = []string{"--audit FILE NEW [--config PATH] [--json]"}

const policyReplayAbout = `Re-decides every recorded issuance, attenuation, delegation and
invocation of an audit trail (canonical or OCSF) under the grant policy
NEW and lists the decisions that would change. An issuance is decided
again at its own time from the request its event records; an attenuation,
delegation or invocation follows its root capability's issuance: one whose
root would now be denied would now be refused. What cannot be replayed is
listed: issue events of trails written before events recorded the request,
uses of capabilities issued before the trail starts, A2E handshakes (their
events do not record groups). A request denied because no resource
matched shows as a change when NEW allows it: review it.

Exit status: 0 nothing would change, 3 something would, 1 a file cannot be
read, 2 usage error.
`

// policyReplay is `capgate policy replay`.
func policyReplay(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	config := fs.String("config", "", "the gateway config at `PATH` NEW is checked against")
	trail := fs.String("audit", "", "the audit trail `FILE` to replay (required)")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	pos, err := parsePositional(fs, args, 1, 1, "NEW")
	if err != nil {
		return err
	}
	if *trail == "" {
		return usagef("--audit FILE is required")
	}
	cand, _, err := policyLoad(ctx, pos[0], *config, e)
	if err != nil {
		return err
	}
	f, err := os.Open(*trail)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := replay.Replay(ctx, f, cand)
	if err != nil {
		return fmt.Errorf("%s: %w", *trail, err)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = writeReplay(e.stdout, *trail, pos[0], rep)
	}
	if err != nil {
		return err
	}
	if len(rep.Changes) > 0 {
		return exitStatus{code: policyReplayChanges, msg: fmt.Sprintf("%s would change %d recorded decision(s)", pos[0], len(rep.Changes))}
	}
	return nil
}

// writeReplay writes the report for a person.
func writeReplay(w io.Writer, trail, cand string, rep replay.Report) error {
	fmt.Fprintf(w, "replay of %s under %s (revision %s)\n", trail, cand, rep.Revision)
	fmt.Fprintf(w, "%s, %d decisions replayed, %d would change, %d lack what a replay needs\n",
		plural(rep.Events, "event"), rep.Replayed, len(rep.Changes), len(rep.Lacking))
	for _, c := range rep.Changes {
		fmt.Fprintf(w, "\nline %d (%s seq %d) %s %s %s %v\n  was %s, now %s: %s\n",
			c.Line, c.Chain, c.Seq, c.Event, c.Principal, c.Agent, c.Grants, c.Was, c.Now, c.Why)
	}
	if len(rep.Lacking) > 0 {
		fmt.Fprintln(w, "\nnot replayed:")
	}
	for _, l := range rep.Lacking {
		fmt.Fprintf(w, "  line %d (%s seq %d) %s: %s\n", l.Line, l.Chain, l.Seq, l.Event, l.Why)
	}
	return nil
}
