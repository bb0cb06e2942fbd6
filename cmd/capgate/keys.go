package main

import (
	"context"
	"fmt"

	"github.com/capgate/capgate/gateway/authn"
)

// runKeysCommand is `capgate keys …`: hash here, generate in keys_cmd.go.
func runKeysCommand(ctx context.Context, args []string, e env) int {
	if len(args) > 0 && args[0] == "hash" {
		if len(args) != 2 || args[1] == "" {
			fmt.Fprintln(e.stderr, "usage: capgate keys hash KEY")
			return 2
		}
		fmt.Fprintln(e.stdout, authn.HashKey(args[1]))
		return 0
	}
	return runKeys(ctx, args, e.stdout, e.stderr)
}
