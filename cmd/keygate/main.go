package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"keygate/app"
	"keygate/app/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit code: 0, 1 when the
// command failed, 2 when the command line cannot be read.
func run(args []string, stdout, stderr io.Writer) int {
	// No command, or flags first, is keygate serve, as it always was.
	if len(args) == 0 || servesByDefault(args[0]) {
		args = append([]string{"serve"}, args...)
	}
	c := &cli{s: streams{stdout, stderr}, goFlags: map[*cobra.Command]goFlags{}, attached: map[*cobra.Command][]string{}}
	root := c.root()
	if args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd {
		c.attachAll()
	}
	if code, ok := bareGroup(root, args, stderr); ok {
		return code
	}
	root.SetArgs(args)
	err := root.Execute()
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	default:
		fmt.Fprintf(stderr, "keygate: %v\nRun 'keygate --help' for usage.\n", err)
		return 2
	}
}

// servesByDefault: an argument that is a flag (or empty) but not a request
// for help starts keygate serve with it.
func servesByDefault(arg string) bool {
	return !isHelpFlag(arg) && (arg == "" || strings.HasPrefix(arg, "-"))
}

// root is the command tree.
func (c *cli) root() *cobra.Command {
	cobra.EnableCommandSorting = false
	root := &cobra.Command{
		Use:   "keygate",
		Short: "Serve a stock Cursor client's Agent on your organisation's own LLM keys",
		Long: "Keygate serves a stock Cursor client's Agent on your organisation's own LLM keys: one binary on a\n" +
			"laptop (embedded SQLite, no set-up) or a company service on PostgreSQL behind SSO.",
		Example: "  keygate                                  # serve on 127.0.0.1:7878, the proxy on 127.0.0.1:7879\n" +
			"  keygate cursor setup                     # point this machine's Cursor at it\n" +
			"  keygate setup claude-code --model NAME   # point Claude Code (or: setup codex) at it\n" +
			"  keygate ca init --cert company-ca.crt --key company-ca.key   # a company's CA, once\n" +
			"  keygate doctor                           # check a configuration and what it points at\n" +
			"  source <(keygate completion bash)        # shell completion (zsh, fish, powershell too)",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(c.s.out)
	root.SetErr(c.s.err)
	root.SetHelpFunc(c.help(root))
	root.AddCommand(
		c.serve(),
		c.doctor(),
		c.leaf(&cobra.Command{
			Use:     "version",
			Short:   "Print Keygate's version",
			Example: "  keygate version",
		}, ownFlags("keygate version", func(*flag.FlagSet) func(streams) int {
			return func(s streams) int {
				fmt.Fprintln(s.out, "keygate "+app.Version())
				return 0
			}
		})),
		group(&cobra.Command{
			Use:     "cursor",
			Short:   "Set up Cursor on this machine",
			Example: "  keygate cursor setup\n  keygate cursor setup --undo",
		}, c.cursorSetup()),
		group(&cobra.Command{
			Use:     "setup",
			Short:   "Point other coding agents (Claude Code, the Codex CLI) at Keygate's compatible API",
			Example: "  keygate setup claude-code --model 'Claude Sonnet'\n  keygate setup codex --model gpt-5 --write",
		}, c.setupClaudeCode(), c.setupCodex()),
		group(&cobra.Command{
			Use:     "ca",
			Short:   "Create, export or adopt the CA the proxy intercepts Cursor's TLS with",
			Example: "  keygate ca init --cert company-ca.crt --key company-ca.key\n  keygate ca export --out keygate-ca.crt\n  keygate ca adopt --ca-cert company-ca.crt --ca-key company-ca.key",
		}, c.caInit(), c.caExport(), c.caAdopt()),
		group(&cobra.Command{
			Use:     "secret",
			Short:   "Rotate or adopt the secret key that seals provider keys",
			Example: "  keygate secret rotate\n  keygate secret adopt --secret-key-file /run/secrets/keygate.key",
		}, c.secretRotate(), c.secretAdopt()),
		group(&cobra.Command{
			Use:     "budgets",
			Short:   "Import budget limits into the database (the console and the control API edit them)",
			Example: "  keygate budgets import deploy/budgets.example.json",
		}, c.budgetsImport()),
	)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	examples(root)
	return root
}

// examples gives cobra's own commands, help and completion, an example
// each.
func examples(root *cobra.Command) {
	examples := map[string]string{
		"bash":       "  source <(keygate completion bash)\n  keygate completion bash > /etc/bash_completion.d/keygate",
		"zsh":        "  keygate completion zsh > \"${fpath[1]}/_keygate\"",
		"fish":       "  keygate completion fish > ~/.config/fish/completions/keygate.fish",
		"powershell": "  keygate completion powershell | Out-String | Invoke-Expression",
	}
	for _, cmd := range root.Commands() {
		switch cmd.Name() {
		case "help":
			cmd.Example = "  keygate help ca init"
		case "completion":
			cmd.Example = "  keygate completion bash\n  keygate completion zsh"
			for _, shell := range cmd.Commands() {
				shell.Example = examples[shell.Name()]
			}
		}
	}
}

// ownFlags is a goFlags command with a flag set of its own: define
// registers the flags and returns the body that runs once they are parsed.
// env names the environment variables it reads besides those its flags'
// usage names.
func ownFlags(name string, define func(*flag.FlagSet) func(streams) int, env ...string) goFlags {
	return goFlags{
		flags: func() (*flag.FlagSet, []string) {
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			define(fs)
			return fs, env
		},
		run: func(s streams, args []string) int {
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			body := define(fs)
			if code, ok := parseFlags(fs, args, s.err); !ok {
				return code
			}
			return body(s)
		},
	}
}

// configFlags are the flags and environment variables of keygate serve,
// exactly as app/config defines them (with extra's flags added): the
// configuration is read by calling it with no arguments.
func configFlags(extra func(*flag.FlagSet)) func() (*flag.FlagSet, []string) {
	return func() (*flag.FlagSet, []string) {
		var fs *flag.FlagSet
		capture := func(f *flag.FlagSet) {
			if extra != nil {
				extra(f)
			}
			fs = f
		}
		getenv, names := recordEnv(os.Getenv)
		if _, _, err := config.Parse(nil, getenv, io.Discard, capture); err != nil || fs == nil {
			// An environment variable that does not parse: show the
			// built-in defaults (serve says what is wrong).
			getenv, names = recordEnv(func(string) string { return "" })
			_, _, _ = config.Parse(nil, getenv, io.Discard, capture)
		}
		if fs == nil {
			fs = flag.NewFlagSet("keygate serve", flag.ContinueOnError)
		}
		return fs, names()
	}
}

// serve is `keygate serve`, also what keygate runs without a command.
func (c *cli) serve() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "serve",
		Short: "Run the gateway: console, control API and the proxy Cursor is pointed at (the default command)",
		Long: "Run the gateway: the admin console and control API on --listen, the forward proxy Cursor is pointed\n" +
			"at on --proxy-listen. Every flag has an environment variable; a flag wins over its variable.\n" +
			"SIGINT or SIGTERM drains and stops; a second signal stops at once.",
		Example: "  keygate serve\n" +
			"  keygate serve --data-dir ./data --listen 127.0.0.1:7878\n" +
			"  KEYGATE_DATABASE_URL=postgres://keygate@db:5432/keygate KEYGATE_CA_CERT=company-ca.crt KEYGATE_CA_KEY=company-ca.key keygate serve",
	}, goFlags{flags: configFlags(nil), run: serve})
}

func serve(s streams, args []string) int {
	cfg, err := config.Load(args, os.Getenv, io.Discard)
	if err != nil {
		return flagError(err, "keygate serve", s.err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal starts the drain; a second one stops the process
	// at once.
	context.AfterFunc(ctx, stop)

	kg, cleanup, err := app.Initialize(ctx, cfg)
	if err != nil {
		fmt.Fprintf(s.err, "keygate: start: %v\n", err)
		return 1
	}
	defer cleanup()
	if err := kg.Run(ctx, nil); err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	return 0
}
