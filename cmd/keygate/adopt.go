package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"

	"keygate/app"
	"keygate/app/company"
	"keygate/app/config"
)

// adoptCommand records the configured secret key's (company.KeyMark) or
// CA's (company.CAMark) fingerprint as the deployment's, replacing the one
// the replicas recorded: the way out after a deliberate change, since a
// replica whose key or CA differs from the recorded one is refused at
// start. It reads the configuration as `keygate serve` does.
func adoptCommand(mark string, args []string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 2
	}
	ctx := context.Background()
	dir, err := app.PrepareDataDir(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	var fp, what string
	switch mark {
	case company.KeyMark:
		ring, err := app.OpenSecretBox(cfg, dir)
		if err != nil {
			fmt.Fprintf(stderr, "keygate: %v\n", err)
			return 1
		}
		fp, what = ring.Fingerprint(), "secret key"
	default:
		authority, err := app.OpenCA(cfg, dir)
		if err != nil {
			fmt.Fprintf(stderr, "keygate: %v\n", err)
			return 1
		}
		fp, what = authority.Fingerprint(), "CA"
	}
	store, closeStore, err := app.OpenStore(ctx, cfg, zap.NewNop(), dir)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	defer closeStore()
	old, err := company.Adopt(ctx, store.Fingerprints(), mark, fp)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: record the %s's fingerprint: %v\n", what, err)
		return 1
	}
	switch old {
	case "":
		fmt.Fprintf(stdout, "The deployment's %s is now this one (fingerprint %s).\n", what, company.Short(fp))
	default:
		fmt.Fprintf(stdout, "The deployment's %s is now this one (fingerprint %s, was %s). Replicas started with the old one are refused; give them this one.\n",
			what, company.Short(fp), company.Short(old))
	}
	return 0
}
