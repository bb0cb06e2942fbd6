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
// with subcommands. Every node answers -h, --help and help (also as
// `capgate help NAME...`) with its usage on standard output (exit 0), and
// a usage mistake with what was wrong on standard error (exit 2).
//
// A leaf's run declares its flags and parses them before it does anything
// else, so that run with only --help does nothing but return a helpRequest
// carrying its flag set: that is where its usage finds its flags.
type command struct {
	name string // the words after "capgate", e.g. "keys generate"
	// synopsis holds the leaf's forms: what follows "capgate NAME". A
	// newline in a form continues it on the next line. Every flag the leaf
	// defines appears in one of its forms; the parent's usage lists the
	// same forms.
	synopsis []string
	summary  string // one line, under the synopsis in a group's usage
	about    string // the text between a leaf's synopsis and its flags
	// dashArg names the positional argument that may start with '-' (a key
	// id), if any: an unknown flag then says that it goes after "--".
	dashArg string
	run     func(ctx context.Context, args []string, e env) error
	subs    []*command
}

// usageError is a command-line mistake: exit status 2, with the usage.
type usageError struct {
	msg string
	// unknownFlag is the argument taken for an undefined flag, if that was
	// the mistake.
	unknownFlag string
	// suggestion is the known name nearest to a mistyped one: the message
	// asks "did you mean" it, and the usage is left out.
	suggestion string
}

func (u usageError) Error() string {
	if u.suggestion != "" {
		return u.msg + "; did you mean " + u.suggestion + "?"
	}
	return u.msg
}

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{msg: fmt.Sprintf(format, a...)} }

// exitStatus is an outcome that is neither success nor failure, such as
// `policy diff` finding a widening: report prints msg, if any, to standard
// error and exits with code.
type exitStatus struct {
	code int
	msg  string
}

func (s exitStatus) Error() string { return s.msg }

// helpRequest is the answer to -h, --help or help: it matches flag.ErrHelp
// and carries the flag set parsed, so the usage lists its flags.
type helpRequest struct{ flags *flag.FlagSet }

func (helpRequest) Error() string { return flag.ErrHelp.Error() }

// Is makes a helpRequest match flag.ErrHelp.
func (helpRequest) Is(target error) bool { return target == flag.ErrHelp }

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "help" || arg == "-h" || arg == "--help" }

// dispatch runs c with args and returns the exit status. "help NAME..."
// is "NAME... --help".
func (c *command) dispatch(ctx context.Context, args []string, e env) int {
	if c.run != nil {
		return c.report(ctx, c.run(ctx, args, e), e)
	}
	if len(args) == 0 {
		return c.report(ctx, usagef("missing command"), e)
	}
	if args[0] == "help" && len(args) > 1 {
		return c.dispatch(ctx, append(args[1:len(args):len(args)], "--help"), e)
	}
	if isHelp(args[0]) {
		return c.report(ctx, flag.ErrHelp, e)
	}
	for _, sub := range c.subs {
		if sub.name == c.child(args[0]) {
			return sub.dispatch(ctx, args[1:], e)
		}
	}
	words := make([]string, len(c.subs))
	for i, sub := range c.subs {
		words[i] = strings.TrimPrefix(sub.name, c.name+" ")
	}
	return c.report(ctx, usageError{msg: fmt.Sprintf("unknown command %q", args[0]), suggestion: nearest(args[0], words)}, e)
}

// child is the full name of c's subcommand word.
func (c *command) child(word string) string {
	if c.name == "" {
		return word
	}
	return c.name + " " + word
}

// report prints what err calls for and returns the exit status.
func (c *command) report(ctx context.Context, err error, e env) int {
	var ue usageError
	var st exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		if st.msg != "" {
			fmt.Fprintf(e.stderr, "%s: %s\n", c.title(), st.msg)
		}
		return st.code
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, c.usage(ctx))
		return 0
	case errors.As(err, &ue):
		msg := ue.Error()
		if ue.unknownFlag != "" && c.dashArg != "" {
			msg += fmt.Sprintf(` (a %s that starts with "-" goes after "--": capgate %s [FLAGS] -- %s)`, c.dashArg, c.name, c.dashArg)
		}
		if ue.suggestion != "" {
			fmt.Fprintf(e.stderr, "%s: %s\n(%s shows the usage)\n", c.title(), msg, strings.TrimSpace("capgate help "+c.name))
		} else {
			fmt.Fprintf(e.stderr, "%s: %s\n\n%s", c.title(), msg, c.usage(ctx))
		}
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
// first argument return a helpRequest; a bad flag is a usageError naming
// it, with the nearest defined flag when one is close. Everything after
// "--" is positional, so `keys hash -- --help` hashes the string "--help".
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	if len(args) > 0 && args[0] == "help" {
		return nil, helpRequest{fs}
	}
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, helpRequest{fs}
		} else if err != nil {
			return nil, flagError(fs, args, err)
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

// flagError turns the error of fs.Parse(args) into a usageError. The
// parser stops just after the argument it refused: when that argument is
// a flag fs does not define (and not the value of the flag before it), the
// error names it and the nearest defined flag.
func flagError(fs *flag.FlagSet, args []string, err error) error {
	n := len(args) - len(fs.Args())
	if n < 1 {
		return usageError{msg: err.Error()}
	}
	bad := args[n-1]
	name, _, _ := strings.Cut(strings.TrimLeft(bad, "-"), "=")
	if !strings.HasPrefix(bad, "-") || name == "" || fs.Lookup(name) != nil || takesValue(fs, args[:n-1]) {
		return usageError{msg: err.Error()}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	ue := usageError{msg: "unknown flag " + strings.SplitN(bad, "=", 2)[0], unknownFlag: bad}
	if s := nearest(name, names); s != "" {
		ue.suggestion = flagName(s)
	}
	return ue
}

// takesValue reports whether the last of args is a flag of fs that takes
// the next argument as its value.
func takesValue(fs *flag.FlagSet, args []string) bool {
	if len(args) == 0 {
		return false
	}
	last := args[len(args)-1]
	if !strings.HasPrefix(last, "-") || strings.Contains(last, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(last, "-"))
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// flagName is how the usage spells a flag: -v, --serve.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
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
