package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"keygate/app"
	"keygate/app/config"
	"keygate/app/doctor"
)

// doctorLimit bounds each check; a model's connection test has 20 s of it.
const doctorLimit = 30 * time.Second

// doctorCommand runs `keygate doctor [--cursor-settings FILE] [serve
// flags]`: every check of the configuration keygate serve would start
// with (the same flags and environment) and of what it points at, each
// printed with ok or a fix. It changes nothing but call records and audit
// entries of the connection tests. The exit code is 1 when a check failed,
// so a deploy pipeline can gate on it; 2 when the arguments cannot be read.
func doctorCommand(args []string, stdout, stderr io.Writer) int {
	var settings string
	cfg, problems, err := config.Parse(args, os.Getenv, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&settings, "cursor-settings", "", "Cursor settings.json to check (default: Cursor's user settings for this OS)")
	})
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	checks, cleanup := app.DoctorChecks(cfg, problems, app.DoctorOptions{CursorSettings: settings})
	defer cleanup()
	report := doctor.Run(ctx, checks, doctorLimit)
	if err := report.Write(stdout); err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	if report.Failed() > 0 {
		return 1
	}
	return 0
}
