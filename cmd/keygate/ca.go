package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"keygate/adapters/ca"
)

// caExport is `keygate ca export [--out FILE]`: it writes this
// installation's CA certificate (generating the CA on first use) so that it
// can be installed in trust stores or given to NODE_EXTRA_CA_CERTS.
func (c *cli) caExport() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "export",
		Short: "Write this installation's CA certificate, to trust it or give it to NODE_EXTRA_CA_CERTS",
		Long: "Write this installation's CA certificate (PEM), the one the laptop proxy intercepts Cursor's TLS with,\n" +
			"generating the CA in the data directory on first use.",
		Example: "  keygate ca export > keygate-ca.crt\n  keygate ca export --out keygate-ca.crt --data-dir ./data",
	}, ownFlags("keygate ca export", func(fs *flag.FlagSet) func(streams) int {
		dataDir := dataDirFlag(fs)
		out := fs.String("out", "-", "file to write the PEM certificate to (- for standard output)")
		return func(s streams) int { return exportCA(s, *dataDir, *out) }
	}))
}

func exportCA(s streams, dataDir, out string) int {
	dir, err := prepareDataDir(dataDir)
	if err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	auth, created, err := ca.LoadOrCreate(dir, time.Now())
	if err != nil {
		fmt.Fprintf(s.err, "keygate: installation CA: %v\n", err)
		return 1
	}
	if created {
		fmt.Fprintf(s.err, "keygate: created this installation's CA in %s\n", dir)
	}
	if out == "-" {
		_, err = s.out.Write(auth.CertPEM())
	} else {
		err = os.WriteFile(out, auth.CertPEM(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(s.err, "keygate: write CA certificate: %v\n", err)
		return 1
	}
	return 0
}
