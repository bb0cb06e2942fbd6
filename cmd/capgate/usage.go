package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// usageWidth is the column usage text wraps at.
const usageWidth = 80

// usage renders c's usage: a group lists the synopsis and summary of every
// leaf beneath it; a leaf shows its synopsis, its about text and its
// flags. The root and each group list a leaf with the same forms as the
// leaf's own usage.
func (c *command) usage(ctx context.Context) string {
	var b strings.Builder
	if c.run == nil {
		c.writeGroupUsage(&b)
		return b.String()
	}
	for i, form := range c.synopsis {
		prefix := "usage: "
		if i > 0 {
			prefix = "       "
		}
		writeForm(&b, prefix+"capgate "+c.name+" ", form)
	}
	if c.about != "" {
		b.WriteString("\n" + c.about)
	}
	if fs := c.flags(ctx); fs != nil {
		writeFlags(&b, fs)
	}
	return b.String()
}

// writeGroupUsage writes the leaves under c with their summaries.
func (c *command) writeGroupUsage(b *strings.Builder) {
	if c.about != "" {
		b.WriteString(c.about + "\n\n")
	}
	b.WriteString("usage:\n")
	var first string
	c.eachLeaf(func(leaf *command) {
		if first == "" {
			first = leaf.name
		}
		for _, form := range leaf.synopsis {
			writeForm(b, "  capgate "+leaf.name+" ", form)
		}
		b.WriteString("      " + leaf.summary + "\n")
	})
	fmt.Fprintf(b, "\nEvery command takes -h, --help or help for its own usage, with its flags:\ncapgate help %s is capgate %s --help.\n", first, first)
}

// eachLeaf calls f with every leaf under c, in the tree's order.
func (c *command) eachLeaf(f func(*command)) {
	if c.run != nil {
		f(c)
	}
	for _, sub := range c.subs {
		sub.eachLeaf(f)
	}
}

// flags returns the flag set a leaf's run declares, from run with only
// --help, which parses and does nothing else.
func (c *command) flags(ctx context.Context) *flag.FlagSet {
	quiet := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		getenv: func(string) string { return "" }, now: time.Now}
	var h helpRequest
	if err := c.run(ctx, []string{"--help"}, quiet); errors.As(err, &h) {
		return h.flags
	}
	return nil
}

// writeForm writes one synopsis form after prefix; its continuation lines
// are aligned under its first argument.
func writeForm(b *strings.Builder, prefix, form string) {
	indent := strings.Repeat(" ", len(prefix))
	for i, line := range strings.Split(form, "\n") {
		if i == 0 {
			b.WriteString(strings.TrimRight(prefix+line, " ") + "\n")
		} else {
			b.WriteString(indent + strings.TrimRight(line, " ") + "\n")
		}
	}
}

// writeFlags lists the flags of fs: the flag with its value's name (the
// back-quoted word of its usage), then its usage and its default.
func writeFlags(b *strings.Builder, fs *flag.FlagSet) {
	type row struct{ left, text string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		name, text := flag.UnquoteUsage(f)
		left := flagName(f.Name)
		if name != "" {
			left += " " + name
		}
		if !isZeroDefault(f.DefValue) {
			text += " (default " + f.DefValue + ")"
		}
		rows = append(rows, row{left, text})
		width = max(width, len(left))
	})
	if len(rows) == 0 {
		return
	}
	width = min(width, 22)
	b.WriteString("\nFlags:\n")
	for _, r := range rows {
		lines := wrap(r.text, usageWidth-width-4)
		if len(r.left) > width {
			b.WriteString("  " + r.left + "\n")
		} else {
			fmt.Fprintf(b, "  %-*s  %s\n", width, r.left, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintf(b, "  %-*s  %s\n", width, "", l)
		}
	}
}

// isZeroDefault reports whether a flag's default is its type's zero value,
// which the usage does not spell out.
func isZeroDefault(v string) bool {
	switch v {
	case "", "0", "false", "0s":
		return true
	}
	return false
}

// wrap breaks text into lines of at most width columns, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
