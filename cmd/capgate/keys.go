package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/capgate/capgate/gateway/authn"
)

// keysHash is `capgate keys hash KEY`: the config hash of a dev API key.
// A key that starts with "-" or is "help" goes after "--".
func keysHash(_ context.Context, args []string, e env) error {
	pos, err := parsePositional(flag.NewFlagSet("keys hash", flag.ContinueOnError), args, 1, 1, "KEY")
	if err != nil {
		return err
	}
	if pos[0] == "" {
		return usagef("KEY is empty")
	}
	fmt.Fprintln(e.stdout, authn.HashKey(pos[0]))
	return nil
}
