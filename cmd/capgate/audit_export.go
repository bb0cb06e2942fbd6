package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/siem"
)

// auditExportSynopsis is the synopsis of audit export.
var auditExportSynopsis = []string{"--format ocsf|cef [--audit FILE|-]"}

const auditExportAbout = `export renders an audit trail for a SIEM: --format ocsf writes one OCSF
1.8.0 JSON record per line (API Activity, and Authentication for A2E
handshakes), --format cef one ArcSight CEF line per event. It reads the
canonical trail the gateway wrote: --audit FILE, or standard input when
FILE is - or absent; it writes to standard output.

Every record names its chain, its position in the chain and the event's
chain hash (OCSF: metadata.log_name, .sequence and .uid, and the whole
canonical event under unmapped.capgate; CEF: cs1, cn1 and cs2), so a SIEM
record can be checked against the trail. Export does not verify the chain
itself: run capgate audit verify on the trail for that.

Exit status: 0 exported, 1 a line is not an audit event (nothing after it
is written), 2 usage error.
`

// runAuditExport is `capgate audit export`.
func runAuditExport(_ context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("audit export", flag.ContinueOnError)
	format := fs.String("format", "", "the SIEM `FORMAT`: ocsf or cef")
	file := fs.String("audit", "-", "the audit trail `FILE` to read; - is standard input")
	if _, err := parsePositional(fs, args, 0, 0, ""); err != nil {
		return err
	}
	f, err := siem.ParseFormat(*format)
	if err != nil || f == siem.Canonical {
		return usagef("--format must be ocsf or cef")
	}
	in := e.stdin
	if *file != "-" {
		fh, err := os.Open(*file)
		if err != nil {
			return err
		}
		defer fh.Close()
		in = fh
	}
	r, err := siem.NewRenderer(f, buildVersion())
	if err != nil {
		return err
	}
	n, err := exportTrail(r, in, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "exported %s as %s\n", plural(n, "event"), f)
	return nil
}

// exportTrail renders every line of in to out and counts them; blank
// lines are skipped.
func exportTrail(r *siem.Renderer, in io.Reader, out io.Writer) (int, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), audit.MaxLineBytes+2)
	w := bufio.NewWriter(out)
	n, line := 0, 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		rec, err := r.Render(sc.Bytes())
		if err != nil {
			_ = w.Flush()
			return n, fmt.Errorf("line %d: %w", line, err)
		}
		w.Write(rec)
		w.WriteByte('\n')
		n++
	}
	if err := sc.Err(); err != nil {
		_ = w.Flush()
		return n, fmt.Errorf("line %d: %w", line+1, err)
	}
	return n, w.Flush()
}

// buildVersion is the module version this binary was built from, "dev"
// when it has none.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
