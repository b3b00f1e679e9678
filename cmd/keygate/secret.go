package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"

	"keygate/adapters/secret"
	"keygate/app"
	"keygate/app/company"
	"keygate/app/config"
)

// secretCommand runs `keygate secret rotate`: it re-seals every stored
// provider key under a new secret key. With the generated data-directory
// key (laptop) the new key replaces the old file when every key is
// re-sealed; stop `keygate serve` first. With a key from KEYGATE_SECRET_KEY
// or KEYGATE_SECRET_KEY_FILE (company) the new key goes to --new-key-file
// (created 0600 if missing); then point KEYGATE_SECRET_KEY_FILE at it and
// list the old key in KEYGATE_SECRET_PREVIOUS_KEY_FILE until every replica
// has restarted.
//
// `keygate secret adopt [serve flags]` records the configured key as the
// deployment's in the database, after the key the replicas recorded was
// lost: replicas then start with this key only.
func secretCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "adopt" {
		return adoptCommand(company.KeyMark, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "rotate" {
		fmt.Fprintln(stderr, "usage: keygate secret rotate [--data-dir DIR] [--database-url URL] [--new-key-file FILE] | keygate secret adopt [serve flags]")
		return 2
	}
	fs := flag.NewFlagSet("keygate secret rotate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := dataDirFlag(fs)
	dbURL := fs.String("database-url", os.Getenv(config.EnvDatabaseURL), "PostgreSQL URL (env "+config.EnvDatabaseURL+"); empty: the SQLite file in the data directory")
	newKeyFile := fs.String("new-key-file", "", "file for the new key when the key comes from the environment or a file (created 0600 if missing)")
	if err := fs.Parse(args[1:]); err != nil {
		return exitFlag(err)
	}
	dir, err := prepareDataDir(*dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	rot, err := secret.BeginRotation(app.SecretSource(config.SecretsFromEnv(os.Getenv), app.DataDir(dir)), *newKeyFile)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	ctx := context.Background()
	store, closeStore, err := app.OpenStore(ctx, config.Config{DatabaseURL: *dbURL}, zap.NewNop(), app.DataDir(dir))
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
	if *newKeyFile != "" {
		fmt.Fprintf(stdout, "Set %s=%s and restart every replica; keep the old key in %s until then.\n",
			config.EnvSecretKeyFile, *newKeyFile, config.EnvSecretPreviousKeyFile)
	}
	return 0
}
