package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"keygate/app"
	"keygate/app/company"
	"keygate/app/config"
)

// adoption is what `keygate ca adopt` or `keygate secret adopt` records:
// the fingerprint of mark, a what.
type adoption struct{ mark, what string }

func (c *cli) caAdopt() *cobra.Command {
	return c.adopt(&cobra.Command{
		Use:   "adopt",
		Short: "Record the configured CA as the deployment's, after moving to a new company CA on purpose",
		Long: "Record the configured CA's fingerprint (the SHA-256 of its public key) as the deployment's in the\n" +
			"database, replacing the one the replicas recorded: replicas then start with this CA only. It takes\n" +
			"keygate serve's flags and environment.",
		Example: "  keygate ca adopt --ca-cert company-ca.crt --ca-key company-ca.key\n" +
			"  KEYGATE_DATABASE_URL=postgres://keygate@db:5432/keygate KEYGATE_CA_CERT=company-ca.crt KEYGATE_CA_KEY=company-ca.key keygate ca adopt",
	}, adoption{company.CAMark, "CA"})
}

func (c *cli) secretAdopt() *cobra.Command {
	return c.adopt(&cobra.Command{
		Use:   "adopt",
		Short: "Record the configured secret key as the deployment's, after the recorded one was lost",
		Long: "Record the configured secret key's fingerprint as the deployment's in the database, replacing the one\n" +
			"the replicas recorded: replicas then start with this key only. It takes keygate serve's flags and\n" +
			"environment.",
		Example: "  keygate secret adopt --secret-key-file /run/secrets/keygate.key\n" +
			"  KEYGATE_DATABASE_URL=postgres://keygate@db:5432/keygate KEYGATE_SECRET_KEY_FILE=/run/secrets/keygate.key keygate secret adopt",
	}, adoption{company.KeyMark, "secret key"})
}

// adopt records the configured secret key's (company.KeyMark) or CA's
// (company.CAMark) fingerprint as the deployment's, replacing the one the
// replicas recorded: the way out after a deliberate change, since a
// replica whose key or CA differs from the recorded one is refused at
// start. It reads the configuration as `keygate serve` does.
func (c *cli) adopt(cmd *cobra.Command, a adoption) *cobra.Command {
	c.leaf(cmd, goFlags{flags: configFlags(nil), run: func(s streams, args []string) int {
		return runAdopt(cmd.CommandPath(), a, s, args)
	}})
	return cmd
}

func runAdopt(command string, a adoption, s streams, args []string) int {
	cfg, err := config.Load(args, os.Getenv, io.Discard)
	if err != nil {
		return flagError(err, command, s.err)
	}
	ctx := context.Background()
	dir, err := app.PrepareDataDir(cfg)
	if err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	var fp string
	switch a.mark {
	case company.KeyMark:
		ring, err := app.OpenSecretBox(cfg, dir)
		if err != nil {
			fmt.Fprintf(s.err, "keygate: %v\n", err)
			return 1
		}
		fp = ring.Fingerprint()
	default:
		authority, err := app.OpenCA(cfg, dir)
		if err != nil {
			fmt.Fprintf(s.err, "keygate: %v\n", err)
			return 1
		}
		fp = authority.Fingerprint()
	}
	store, closeStore, err := app.OpenStore(ctx, cfg, zap.NewNop(), dir)
	if err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	defer closeStore()
	old, err := company.Adopt(ctx, store.Fingerprints(), a.mark, fp)
	if err != nil {
		fmt.Fprintf(s.err, "keygate: record the %s's fingerprint: %v\n", a.what, err)
		return 1
	}
	switch old {
	case "":
		fmt.Fprintf(s.out, "The deployment's %s is now this one (fingerprint %s).\n", a.what, company.Short(fp))
	default:
		fmt.Fprintf(s.out, "The deployment's %s is now this one (fingerprint %s, was %s). Replicas started with the old one are refused; give them this one.\n",
			a.what, company.Short(fp), company.Short(old))
	}
	return 0
}
