package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/capgate/capgate/captoken"
)

// keysActivate is `capgate keys activate --keys FILE KID`: the published
// key KID starts signing, with an injected clock for the retirement time
// of the keys it replaces.
func keysActivate(_ context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) int {
	fset := flag.NewFlagSet("keys activate", flag.ContinueOnError)
	fset.SetOutput(stderr)
	path := fset.String("keys", "", "key file (mode 0600)")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if *path == "" || fset.NArg() != 1 {
		fmt.Fprint(stderr, keysUsage)
		return 2
	}
	ks, err := captoken.LoadKeySetFile(*path)
	if err == nil {
		err = ks.Activate(fset.Arg(0), now())
	}
	if err == nil {
		err = ks.SaveFile(*path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "capgate keys activate: %v\n", err)
		return 1
	}
	keysReport(stdout, *path, ks)
	return 0
}

// keysPrune is `capgate keys prune --keys FILE --older-than D [KID...]`.
// Without KIDs it removes every key retired more than D ago and says which
// retired keys it kept; with KIDs it removes exactly those, or nothing if
// any of them may not go.
func keysPrune(_ context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) int {
	fset := flag.NewFlagSet("keys prune", flag.ContinueOnError)
	fset.SetOutput(stderr)
	path := fset.String("keys", "", "key file (mode 0600)")
	olderThan := fset.Duration("older-than", 0, "remove keys retired longer ago than this: the longest capability lifetime")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if *path == "" || *olderThan <= 0 {
		fmt.Fprint(stderr, keysUsage)
		return 2
	}
	before := now().Add(-*olderThan)
	ks, err := captoken.LoadKeySetFile(*path)
	removed := 0
	if err == nil {
		removed, err = pruneKeys(ks, fset.Args(), before)
	}
	if err == nil {
		err = ks.SaveFile(*path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "capgate keys prune: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "removed %d retired keys\n", removed)
	for _, k := range ks.Keys() {
		if !k.Active && !k.Published {
			fmt.Fprintf(stdout, "kept %s: retired %s, may be pruned after %s\n", k.KeyID,
				k.Retired.UTC().Format(time.RFC3339), k.Retired.Add(*olderThan).UTC().Format(time.RFC3339))
		}
	}
	keysReport(stdout, *path, ks)
	return 0
}

// pruneKeys removes the named keys, or every key retired before before.
func pruneKeys(ks *captoken.KeySet, kids []string, before time.Time) (int, error) {
	if len(kids) == 0 {
		return ks.Prune(before), nil
	}
	for _, kid := range kids {
		if err := ks.PruneKey(kid, before); err != nil {
			return 0, err
		}
	}
	return len(kids), nil
}
