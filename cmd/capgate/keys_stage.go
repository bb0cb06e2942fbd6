package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/capgate/capgate/captoken"
)

// keysActivate is `capgate keys activate --keys FILE KID`: the published
// key KID starts signing; the keys it replaces are retired at e.now().
func keysActivate(_ context.Context, args []string, e env) error {
	fset := flag.NewFlagSet("keys activate", flag.ContinueOnError)
	path := fset.String("keys", "", "the key `FILE` (mode 0600)")
	pos, err := parsePositional(fset, args, 1, 1, "KID")
	if err != nil {
		return err
	}
	if *path == "" {
		return usagef("--keys FILE is required")
	}
	ks, err := captoken.LoadKeySetFile(*path)
	if err == nil {
		err = ks.Activate(pos[0], e.now())
	}
	if err == nil {
		err = ks.SaveFile(*path)
	}
	if err != nil {
		return err
	}
	keysReport(e.stdout, *path, ks)
	return nil
}

// keysPrune is `capgate keys prune --keys FILE --older-than D [KID...]`.
// Without KIDs it removes every key retired more than D ago and says which
// retired keys it kept; with KIDs it removes exactly those, or nothing if
// any of them may not go.
func keysPrune(_ context.Context, args []string, e env) error {
	fset := flag.NewFlagSet("keys prune", flag.ContinueOnError)
	path := fset.String("keys", "", "the key `FILE` (mode 0600)")
	olderThan := fset.Duration("older-than", 0, "remove keys retired longer ago than this `DURATION`: the longest capability lifetime")
	kids, err := parsePositional(fset, args, 0, 64, "KID")
	if err != nil {
		return err
	}
	switch {
	case *path == "":
		return usagef("--keys FILE is required")
	case *olderThan <= 0:
		return usagef("--older-than DURATION is required: the longest capability lifetime")
	}
	ks, err := captoken.LoadKeySetFile(*path)
	removed := 0
	if err == nil {
		removed, err = pruneKeys(ks, kids, e.now().Add(-*olderThan))
	}
	if err == nil {
		err = ks.SaveFile(*path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed %s\n", plural(removed, "retired key"))
	for _, k := range ks.Keys() {
		if !k.Active && !k.Published {
			fmt.Fprintf(e.stdout, "kept %s: retired %s, may be pruned after %s\n", k.KeyID,
				k.Retired.UTC().Format(time.RFC3339), k.Retired.Add(*olderThan).UTC().Format(time.RFC3339))
		}
	}
	keysReport(e.stdout, *path, ks)
	return nil
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
