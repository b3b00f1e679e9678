// Command keygate runs the Keygate gateway. `keygate --help` lists every
// command with one line; each has --help with examples.
//
//	keygate [serve] [serve flags]        (no command runs serve)
//	keygate doctor [--cursor-settings FILE] [serve flags]
//	keygate version
//	keygate cursor setup [--undo]
//	keygate ca init | export | adopt
//	keygate secret rotate | adopt
//	keygate completion bash | zsh | fish | powershell
//
// Place in the hexagon: the outermost shell. It parses the command line,
// builds the object graph through the composition root (package app) and
// turns SIGINT/SIGTERM into a graceful shutdown.
//
// The command line is cobra's (github.com/spf13/cobra), not kong's: cobra
// generates bash, zsh, fish and PowerShell completion itself (kong needs a
// third package, kongplete, for it), and it lets a command keep its flag
// parsing (DisableFlagParsing), which keygate needs: serve's flags and
// environment variables are defined once, in app/config on a standard
// library flag.FlagSet, and serve, doctor and the adopt commands hand their
// arguments to it unchanged, so -flag, --flag, -flag=v and -flag v behave
// as they always did and a flag added there appears here with no change.
// Cobra sees those flags only to print help and complete them (cli.go,
// attach); the golden spec (serve_flags_test.go) keeps their names.
package main
