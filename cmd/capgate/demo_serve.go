package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"text/tabwriter"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// demoListener is an address demo --serve listens on and the flag that
// moves it.
type demoListener struct {
	addr, flag, serves string
}

// portTaken turns a failed start into the flag that moves the taken port:
// when err is an address already in use, it finds which of listeners is
// taken and names its flag, with the next free port as an example.
// Otherwise it returns err.
func portTaken(err error, listeners []demoListener) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	for _, l := range listeners {
		ln, lerr := net.Listen("tcp", l.addr)
		if lerr == nil {
			ln.Close()
			continue
		}
		msg := fmt.Sprintf("%s is taken, so the %s cannot listen there; move it with %s HOST:PORT", l.addr, l.serves, l.flag)
		if free := nextFreePort(l.addr); free != "" {
			msg += fmt.Sprintf(" (%s %s is free)", l.flag, free)
		}
		return errors.New(msg)
	}
	return err
}

// nextFreePort returns the first free address among the twenty ports
// after addr's, or "" when none is.
func nextFreePort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n == 0 {
		return ""
	}
	for p := n + 1; p <= n+20 && p < 65536; p++ {
		try := net.JoinHostPort(host, strconv.Itoa(p))
		if ln, err := net.Listen("tcp", try); err == nil {
			ln.Close()
			return try
		}
	}
	return ""
}

// writeBanner writes every URL the served world answers on: each A2A
// agent, A2E host and MCP server, the metrics, the admin API and the console, with
// the keys to use and the flags that move the listeners.
func writeBanner(w io.Writer, world *quickstart.World) {
	fmt.Fprintf(w, "capgate quickstart world serving (Ctrl-C to stop)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	label := "A2A"
	for _, a := range world.Config.Agents {
		fmt.Fprintf(tw, "  %s\t%s/a2a/%s\n", label, world.URL, a.Name)
		label = ""
	}
	label = "A2E"
	for _, h := range world.Config.A2EHosts {
		fmt.Fprintf(tw, "  %s\t%s/a2e/%s/\t(POST session, GET stream, POST send)\n", label, world.URL, h.Name)
		label = ""
	}
	label = "MCP"
	for _, m := range world.Config.MCPServers {
		fmt.Fprintf(tw, "  %s\t%s/mcp/%s\t(Streamable HTTP)\n", label, world.URL, m.Name)
		label = ""
	}
	fmt.Fprintf(tw, "  metrics\t%s/metrics\t(Prometheus)\n", world.URL)
	fmt.Fprintf(tw, "  admin API\t%s\t(Bearer %s)\n", world.AdminURL, quickstart.AdminKey)
	if world.Config.Console != nil {
		fmt.Fprintf(tw, "  console\t%s/console/\t(sign in with %s; %s approves)\n", world.AdminURL, quickstart.AdminKey, quickstart.DaveKey)
	}
	tw.Flush()
	fmt.Fprintf(w, "\ndev keys: %s, %s, %s, %s, %s (approver)\n", quickstart.AliceKey, quickstart.BobKey,
		quickstart.CarolKey, quickstart.SummarizerKey, quickstart.DaveKey)
	if f := world.Config.Audit.File; f != "" {
		fmt.Fprintf(w, "audit trail: %s (the console's Audit page; capgate audit verify checks it; --audit FILE keeps it)\n", f)
	}
	fmt.Fprintf(w, "other ports: --addr HOST:PORT moves A2A, A2E and metrics; --admin-addr HOST:PORT the admin API and console\n")
	if world.AdminURL != "http://"+defaultAdminAddr {
		fmt.Fprintf(w, "the admin API is not where capgate revoke and approvals look by default: pass them --admin %s\n", world.AdminURL)
	}
}
