package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"keygate/adapters/ca"
	"keygate/app/company"
)

// caCommand runs `keygate ca export [--out FILE]`: it writes this
// installation's CA certificate (generating the CA on first use) so that it
// can be installed in trust stores or given to NODE_EXTRA_CA_CERTS.
//
// `keygate ca adopt [serve flags]` records the configured CA as the
// deployment's in the database, after moving to a new company CA on
// purpose: replicas then start with this CA only.
func caCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "adopt" {
		return adoptCommand(company.CAMark, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "export" {
		fmt.Fprintln(stderr, "usage: keygate ca export [--out FILE] [--data-dir DIR] | keygate ca adopt [serve flags]")
		return 2
	}
	fs := flag.NewFlagSet("keygate ca export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := dataDirFlag(fs)
	out := fs.String("out", "-", "file to write the PEM certificate to (- for standard output)")
	if err := fs.Parse(args[1:]); err != nil {
		return exitFlag(err)
	}
	dir, err := prepareDataDir(*dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	auth, created, err := ca.LoadOrCreate(dir, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "keygate: installation CA: %v\n", err)
		return 1
	}
	if created {
		fmt.Fprintf(stderr, "keygate: created this installation's CA in %s\n", dir)
	}
	if *out == "-" {
		_, err = stdout.Write(auth.CertPEM())
	} else {
		err = os.WriteFile(*out, auth.CertPEM(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "keygate: write CA certificate: %v\n", err)
		return 1
	}
	return 0
}
