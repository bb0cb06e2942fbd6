package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
	"strings"
)

const versionAbout = `Prints the module version, the VCS revision and time the binary was built
from, and the Go version that built it.
`

// runVersion is `capgate version`.
func runVersion(_ context.Context, args []string, e env) error {
	if _, err := parsePositional(flag.NewFlagSet("version", flag.ContinueOnError), args, 0, 0, ""); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("this binary carries no build information")
	}
	fmt.Fprintln(e.stdout, versionLine(bi))
	return nil
}

// versionLine renders the build information in one line, e.g.
// "capgate v0.3.0 revision 1a2b3c4 (2026-11-24T10:00:00Z, modified) go1.26.0".
func versionLine(bi *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	line := "capgate " + bi.Main.Version
	rev := settings["vcs.revision"]
	if rev == "" {
		rev = "unknown"
	}
	line += " revision " + rev
	var notes []string
	if t := settings["vcs.time"]; t != "" {
		notes = append(notes, t)
	}
	if settings["vcs.modified"] == "true" {
		notes = append(notes, "modified")
	}
	if len(notes) > 0 {
		line += " (" + strings.Join(notes, ", ") + ")"
	}
	return line + " " + bi.GoVersion
}
