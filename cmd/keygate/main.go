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

	"keygate/app"
	"keygate/app/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stderr)
	case "cursor":
		return cursorCommand(args, stdout, stderr)
	case "ca":
		return caCommand(args, stdout, stderr)
	case "secret":
		return secretCommand(args, stdout, stderr)
	case "doctor":
		return doctorCommand(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "keygate "+app.Version())
		return 0
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, "usage: keygate [serve] [flags] | keygate doctor [flags] | keygate version | keygate serve -h")
		return 0
	default:
		fmt.Fprintf(stderr, "keygate: unknown command %q (try: serve, doctor, version)\n", cmd)
		return 2
	}
}

func serve(args []string, stderr io.Writer) int {
	cfg, err := config.Load(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal starts the drain; a second one stops the process
	// at once.
	context.AfterFunc(ctx, stop)

	kg, cleanup, err := app.Initialize(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: start: %v\n", err)
		return 1
	}
	defer cleanup()
	if err := kg.Run(ctx, nil); err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	return 0
}
