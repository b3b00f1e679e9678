package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy/setup"
	"keygate/app/company"
	"keygate/app/config"
	"keygate/app/doctor"
)

// maxCADays bounds --days: a root outliving its operators helps nobody.
const maxCADays = 100 * 365

// caInit is `keygate ca init`: it creates the company CA every replica
// must share in company mode on PostgreSQL, with the installation CA's
// key type and name constraints (adapters/ca makes both), and prints what
// to do with it.
func (c *cli) caInit() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "init",
		Short: "Create a company CA (certificate and key files) for every replica to share",
		Long: "Create a company CA: an ECDSA P-256 root name-constrained to cursor.sh and loopback addresses, so\n" +
			"that its key (which sits beside Keygate) cannot impersonate other sites to the machines that trust\n" +
			"it. It writes the certificate (mode 0644) and the key (mode 0600) to new files, never over existing\n" +
			"ones, and prints the next steps: " + config.EnvCACert + ", " + config.EnvCAKey + ", keygate ca adopt, trust.",
		Example: "  keygate ca init --cert company-ca.crt --key company-ca.key\n" +
			"  keygate ca init --name \"Example Corp Keygate CA\" --days 1825 --cert /secure/keygate-ca.crt --key /secure/keygate-ca.key",
	}, ownFlags("keygate ca init", func(fs *flag.FlagSet) func(streams) int {
		var o caInitOptions
		fs.StringVar(&o.cert, "cert", "company-ca.crt", "file to create for the CA certificate (PEM, mode 0644)")
		fs.StringVar(&o.key, "key", "company-ca.key", "file to create for the CA key (PEM, mode 0600)")
		fs.StringVar(&o.name, "name", "Keygate Company CA", "the CA's common name, as trust stores show it")
		fs.IntVar(&o.days, "days", 3650, "days the CA is valid (keygate doctor warns 30 days before it expires)")
		return func(s streams) int { return initCA(s, o, time.Now()) }
	}))
}

// caInitOptions are ca init's flags.
type caInitOptions struct {
	cert, key, name string
	days            int
}

func initCA(s streams, o caInitOptions, now time.Time) int {
	switch {
	case o.days < 1 || o.days > maxCADays:
		fmt.Fprintf(s.err, "keygate: --days %d: must be between 1 and %d\n", o.days, maxCADays)
		return 2
	case strings.TrimSpace(o.name) == "":
		fmt.Fprintln(s.err, "keygate: --name must not be empty")
		return 2
	case o.cert == "" || o.key == "":
		fmt.Fprintln(s.err, "keygate: --cert and --key name the files to create")
		return 2
	}
	certPath, err := filepath.Abs(o.cert)
	if err == nil {
		o.key, err = filepath.Abs(o.key)
	}
	if err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	if certPath == o.key {
		fmt.Fprintln(s.err, "keygate: --cert and --key must be different files")
		return 2
	}
	root, keyPEM, err := ca.GenerateFor(now, o.name, time.Duration(o.days)*24*time.Hour)
	if err == nil {
		// The check keygate doctor makes, before anything is written.
		err = root.Usable(doctor.CAHost, now)
	}
	if err != nil {
		fmt.Fprintf(s.err, "keygate: create the CA: %v\n", err)
		return 1
	}
	if err := ca.CreateFiles(root, keyPEM, certPath, o.key); err != nil {
		if errors.Is(err, ca.ErrExists) {
			fmt.Fprintf(s.err, "keygate: %v: ca init never overwrites a CA (machines may trust it, and a lost key is lost); pick other paths or remove the old files deliberately\n", err)
			return 1
		}
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	cert := root.Certificate()
	fmt.Fprintf(s.out, "Created the company CA %q (fingerprint %s, valid until %s):\n", cert.Subject.CommonName, company.Short(root.Fingerprint()), cert.NotAfter.Format(time.DateOnly))
	fmt.Fprintf(s.out, "  certificate  %s  (mode 0644; every developer's machine trusts it)\n", certPath)
	fmt.Fprintf(s.out, "  key          %s  (mode 0600; a secret for Keygate's replicas only)\n", o.key)
	fmt.Fprintf(s.out, "Its name constraints permit %s (and every name under it) and loopback addresses only.\n\n", strings.Join(cert.PermittedDNSDomains, ", "))
	fmt.Fprintf(s.out, "Next steps:\n")
	fmt.Fprintf(s.out, "1. Give every replica both files (mounted as secrets) and set\n     %s=%s\n     %s=%s\n", config.EnvCACert, certPath, config.EnvCAKey, o.key)
	fmt.Fprintf(s.out, "   (or --ca-cert and --ca-key). `keygate doctor` with them says the CA \"signs for %s, name-constrained\".\n", doctor.CAHost)
	fmt.Fprintf(s.out, "2. A new deployment records this CA when its first replica starts. Moving a running one to it:\n")
	fmt.Fprintf(s.out, "     keygate ca adopt --ca-cert %s --ca-key %s\n", certPath, o.key)
	fmt.Fprintf(s.out, "   with the deployment's %s, then restart every replica.\n", config.EnvDatabaseURL)
	fmt.Fprintf(s.out, "3. Every developer's machine trusts the certificate: push it with device management, or on each machine\n")
	fmt.Fprintf(s.out, "     keygate cursor setup --proxy https://PROXY-HOST:PORT --ca-cert %s\n", filepath.Base(certPath))
	fmt.Fprintf(s.out, "   writes Cursor's settings and prints these steps:\n\n")
	fmt.Fprint(s.out, setup.TrustInstructions(filepath.Base(certPath)))
	return 0
}
