package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"keygate/adapters/secret"
	"keygate/app"
	"keygate/app/company"
	"keygate/app/config"
)

// secretRotate is `keygate secret rotate`: it re-seals every stored
// provider key under a new secret key. With the generated data-directory
// key (laptop) the new key replaces the old file when every key is
// re-sealed; stop `keygate serve` first. With a key from KEYGATE_SECRET_KEY
// or KEYGATE_SECRET_KEY_FILE (company) the new key goes to --new-key-file
// (created 0600 if missing); then point KEYGATE_SECRET_KEY_FILE at it and
// list the old key in KEYGATE_SECRET_PREVIOUS_KEY_FILE until every replica
// has restarted.
func (c *cli) secretRotate() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "rotate",
		Short: "Re-seal every stored provider key under a new secret key",
		Long: "Re-seal every stored provider key under a new secret key and record it as the deployment's.\n" +
			"Laptop (the key generated in the data directory): stop keygate serve first; the new key replaces the\n" +
			"file. Company (" + config.EnvSecretKey + " or " + config.EnvSecretKeyFile + "): the new key goes to --new-key-file; point\n" +
			config.EnvSecretKeyFile + " at it and keep the old one in " + config.EnvSecretPreviousKeyFile + " until every replica restarted.",
		Example: "  keygate secret rotate\n" +
			"  KEYGATE_SECRET_KEY_FILE=/run/secrets/keygate.key keygate secret rotate --database-url postgres://keygate@db:5432/keygate --new-key-file keygate-new.key",
	}, ownFlags("keygate secret rotate", func(fs *flag.FlagSet) func(streams) int {
		dataDir := dataDirFlag(fs)
		dbURL := fs.String("database-url", os.Getenv(config.EnvDatabaseURL), "PostgreSQL URL (env "+config.EnvDatabaseURL+"); empty: the SQLite file in the data directory")
		newKeyFile := fs.String("new-key-file", "", "file for the new key when the key comes from the environment or a file (created 0600 if missing)")
		return func(s streams) int { return rotateSecret(s, *dataDir, *dbURL, *newKeyFile) }
	}, config.EnvSecretKey, config.EnvSecretKeyFile, config.EnvSecretPreviousKeys, config.EnvSecretPreviousKeyFile))
}

func rotateSecret(s streams, dataDir, dbURL, newKeyFile string) int {
	stdout, stderr := s.out, s.err
	dir, err := prepareDataDir(dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	rot, err := secret.BeginRotation(app.SecretSource(config.SecretsFromEnv(os.Getenv), app.DataDir(dir)), newKeyFile)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	ctx := context.Background()
	store, closeStore, err := app.OpenStore(ctx, config.Config{DatabaseURL: dbURL}, zap.NewNop(), app.DataDir(dir))
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	defer closeStore()
	n, err := company.Reseal(ctx, store.Providers(), rot.Ring)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v (%d keys re-sealed; run the command again)\n", err, n)
		return 1
	}
	if err := rot.Commit(); err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	// Replicas compare their key with the database's at start: from now on
	// the new key is the deployment's, and one with the old key alone (which
	// cannot open what was just re-sealed) is refused.
	if _, err := company.Adopt(ctx, store.Fingerprints(), company.KeyMark, rot.Ring.Fingerprint()); err != nil {
		fmt.Fprintf(stderr, "keygate: record the new key's fingerprint: %v (run `keygate secret adopt` with the new key)\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Re-sealed %d provider keys under the new secret key.\n", n)
	if newKeyFile != "" {
		fmt.Fprintf(stdout, "Set %s=%s and restart every replica; keep the old key in %s until then.\n",
			config.EnvSecretKeyFile, newKeyFile, config.EnvSecretPreviousKeyFile)
	}
	return 0
}
