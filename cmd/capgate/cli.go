package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one node of the command tree: a leaf with run, or a group
// with subcommands. Every node answers -h, --help and help with its usage
// on standard output (exit 0), and a usage mistake with its usage on
// standard error (exit 2) after naming what was wrong.
type command struct {
	name  string // the words after "capgate", e.g. "keys generate"
	usage string
	run   func(ctx context.Context, args []string, e env) error
	subs  []*command
}

// usageError is a command-line mistake: exit status 2, with the usage.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "help" || arg == "-h" || arg == "--help" }

// dispatch runs c with args and returns the exit status.
func (c *command) dispatch(ctx context.Context, args []string, e env) int {
	if c.run != nil {
		return c.report(c.run(ctx, args, e), e)
	}
	if len(args) == 0 {
		return c.report(usagef("missing command"), e)
	}
	if isHelp(args[0]) {
		return c.report(flag.ErrHelp, e)
	}
	for _, sub := range c.subs {
		if sub.name == c.child(args[0]) {
			return sub.dispatch(ctx, args[1:], e)
		}
	}
	return c.report(usagef("unknown command %q", args[0]), e)
}

// child is the full name of c's subcommand word.
func (c *command) child(word string) string {
	if c.name == "" {
		return word
	}
	return c.name + " " + word
}

// report prints what err calls for and returns the exit status.
func (c *command) report(err error, e env) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, c.usage)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "%s: %s\n\n%s", c.title(), ue.msg, c.usage)
		return 2
	default:
		fmt.Fprintf(e.stderr, "%s: %v\n", c.title(), err)
		return 1
	}
}

func (c *command) title() string {
	if c.name == "" {
		return "capgate"
	}
	return "capgate " + c.name
}

// parseFlags parses flags placed before, between or after the positional
// arguments and returns the positional ones. -h, --help, or "help" as the
// first argument return flag.ErrHelp; a bad flag is a usageError naming
// it. Everything after "--" is positional, so `keys hash -- --help` hashes
// the string "--help".
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	if len(args) > 0 && args[0] == "help" {
		return nil, flag.ErrHelp
	}
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, err
		} else if err != nil {
			return nil, usageError{flagHint(err)}
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// flagHint is the message of a flag error. A key id is base64url and may
// start with '-', where the flag parser takes it for an undefined flag:
// the message says how to pass it.
func flagHint(err error) string {
	if strings.HasPrefix(err.Error(), "flag provided but not defined: ") {
		return err.Error() + ` (an argument that starts with "-", such as a key id, goes after "--")`
	}
	return err.Error()
}

// parsePositional parses flags and checks that between min and max
// positional arguments were given; what names them in the error.
func parsePositional(fs *flag.FlagSet, args []string, min, max int, what string) ([]string, error) {
	pos, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return nil, err
	case len(pos) < min:
		return nil, usagef("missing %s", what)
	case len(pos) > max && max == 0:
		return nil, usagef("unexpected argument %q", pos[0])
	case len(pos) > max:
		return nil, usagef("unexpected argument %q after %s", pos[max], what)
	}
	return pos, nil
}
