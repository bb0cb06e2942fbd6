package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/go-jose/go-jose/v4"
)

const keysGenerateAbout = `Without --rotate, writes a new key set (signing + sealing keys) to
FILE, which must not exist, in a directory that must; with --if-absent an
existing FILE is left as it is and is not an error (for an init container
that runs on every start). With --rotate it loads FILE and publishes fresh
keys: they verify at once but sign nothing until "keys activate". Roll the
file out to every replica between the steps. --rotate --activate does both
at once, for a single replica or a restart of all replicas together.

FILE holds PRIVATE keys and is rewritten atomically with mode 0600.
`

const keysActivateAbout = `Makes the published key KID sign; the keys active until then are kept,
retired now, so the tokens they signed keep verifying. A KID that starts
with "-" goes after "--".

FILE holds PRIVATE keys and is rewritten atomically with mode 0600.
`

const keysPruneAbout = `Removes the keys retired more than DURATION ago (all of them, or the KIDs
given); pass the longest capability lifetime (capabilities.max_ttl). It
never removes the active or a published key. A KID that starts with "-"
goes after "--".

FILE holds PRIVATE keys and is rewritten atomically with mode 0600.
`

const keysHashAbout = `Prints the config hash of a dev API key (authn.dev_keys[].hash). A KEY
that starts with "-", or is "help", goes after "--".
`

// keysGenerate is `capgate keys generate`; the clock gives the retirement
// time recorded by --rotate.
func keysGenerate(_ context.Context, args []string, e env) error {
	fset := flag.NewFlagSet("keys generate", flag.ContinueOnError)
	out := fset.String("out", "", "the key `FILE` to write (mode 0600)")
	algName := fset.String("alg", string(jose.EdDSA), "the signature algorithm `ALG`: EdDSA or ES256")
	rotate := fset.Bool("rotate", false, "publish fresh keys in an existing FILE")
	activate := fset.Bool("activate", false, "with --rotate, activate the fresh keys at once")
	ifAbsent := fset.Bool("if-absent", false, "leave an existing FILE as it is, and succeed")
	if _, err := parsePositional(fset, args, 0, 0, ""); err != nil {
		return err
	}
	alg := jose.SignatureAlgorithm(*algName)
	switch {
	case *out == "":
		return usagef("--out FILE is required")
	case alg != jose.EdDSA && alg != jose.ES256:
		return usagef("--alg %q: want EdDSA or ES256", *algName)
	case *rotate && *ifAbsent:
		return usagef("--rotate and --if-absent exclude each other")
	case *activate && !*rotate:
		return usagef("--activate goes with --rotate")
	}
	if _, err := os.Lstat(*out); err == nil && *ifAbsent {
		fmt.Fprintf(e.stdout, "%s exists; left as it is\n", *out)
		return nil
	}
	algSet := false
	fset.Visit(func(f *flag.Flag) { algSet = algSet || f.Name == "alg" })

	var ks *captoken.KeySet
	var err error
	if *rotate {
		ks, err = keysRotate(*out, alg, algSet, *activate, e.now())
	} else {
		ks, err = keysCreate(*out, alg)
	}
	if err == nil {
		err = ks.SaveFile(*out)
	}
	if err != nil {
		return err
	}
	keysReport(e.stdout, *out, ks)
	return nil
}

func keysCreate(path string, alg jose.SignatureAlgorithm) (*captoken.KeySet, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%s already exists; use --rotate to rotate its keys", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return captoken.GenerateKeySet(alg)
}

// keysRotate publishes fresh keys in the key file, and with activate makes
// them active at once. Without --alg the algorithm stays the active key's.
func keysRotate(path string, alg jose.SignatureAlgorithm, algSet, activate bool, now time.Time) (*captoken.KeySet, error) {
	ks, err := captoken.LoadKeySetFile(path)
	if err != nil {
		return nil, err
	}
	if !activate {
		if !algSet {
			alg = jose.SignatureAlgorithm(ks.Keys()[0].Algorithm)
		}
		return ks, ks.Publish(alg)
	}
	if algSet {
		return ks, ks.RotateAlgorithm(now, alg)
	}
	return ks, ks.Rotate(now)
}

func keysReport(w io.Writer, path string, ks *captoken.KeySet) {
	fmt.Fprintf(w, "wrote %s (mode 0600, contains private keys)\n", path)
	for _, k := range ks.Keys() {
		role, state := "signing", "active"
		if k.Sealing {
			role = "sealing"
		}
		switch {
		case k.Published:
			state = "published: verifies, does not sign until activated"
		case !k.Active:
			state = "previous, retired " + k.Retired.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  %-7s %-6s %s (%s)\n", role, k.Algorithm, k.KeyID, state)
	}
}
