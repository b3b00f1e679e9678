package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"keygate/app"
	"keygate/app/config"
	"keygate/app/doctor"
)

// doctorLimit bounds each check; a model's connection test has 20 s of it.
const doctorLimit = 30 * time.Second

// doctor runs `keygate doctor [--cursor-settings FILE] [serve flags]`:
// every check of the configuration keygate serve would start with (the
// same flags and environment) and of what it points at, each printed with
// ok or a fix. It changes nothing but call records and audit entries of the
// connection tests. The exit code is 1 when a check failed, so a deploy
// pipeline can gate on it; 2 when the arguments cannot be read.
func (c *cli) doctor() *cobra.Command {
	var discard string
	return c.leaf(&cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration serve would start with, and what it points at",
		Long: "Check the configuration keygate serve would start with (the same flags and environment) and what it\n" +
			"points at: database, secret key, CA, proxy TLS, allow-list, every enabled model, Cursor on this machine.\n" +
			"Each check prints ok or what is wrong and its fix. Exit code 1 when a check failed, 2 for arguments\n" +
			"it cannot read.",
		Example: "  keygate doctor\n" +
			"  keygate doctor --cursor-settings ~/.config/Cursor/User/settings.json\n" +
			"  KEYGATE_DATABASE_URL=postgres://keygate@db:5432/keygate keygate doctor --ca-cert company-ca.crt --ca-key company-ca.key",
	}, goFlags{flags: configFlags(cursorSettingsFlag(&discard)), run: runDoctor})
}

// cursorSettingsFlag is the one flag doctor adds to serve's.
func cursorSettingsFlag(dst *string) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		fs.StringVar(dst, "cursor-settings", "", "Cursor settings.json to check (default: Cursor's user settings for this OS)")
	}
}

func runDoctor(s streams, args []string) int {
	var settings string
	cfg, problems, err := config.Parse(args, os.Getenv, io.Discard, cursorSettingsFlag(&settings))
	if err != nil {
		return flagError(err, "keygate doctor", s.err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	checks, cleanup := app.DoctorChecks(cfg, problems, app.DoctorOptions{CursorSettings: settings})
	defer cleanup()
	report := doctor.Run(ctx, checks, doctorLimit)
	if err := report.Write(s.out); err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	if report.Failed() > 0 {
		return 1
	}
	return 0
}
