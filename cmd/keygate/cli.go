package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// streams are where a command writes.
type streams struct{ out, err io.Writer }

// showHelp is what a command's run returns for -h, -help or --help: the
// command's help is printed and keygate exits 0.
const showHelp = -1

// exitCode carries a command's exit status through cobra, which knows only
// errors; the command has said what went wrong already.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// goFlags is a command whose flags the standard library's flag package
// reads, as before keygate had cobra: -flag and --flag, -flag=v and
// -flag v all work as they did, and serve's flags stay defined once, where
// app/config registers them (cobra's flag parsing is off for these
// commands).
type goFlags struct {
	// flags returns the command's flags with their defaults, for help and
	// completion, and the environment variables the command reads, for
	// help (nil when each flag's usage names its variable and there are no
	// others).
	flags func() (*flag.FlagSet, []string)
	// run parses args itself and runs the command: an exit code, or
	// showHelp.
	run func(s streams, args []string) int
}

// cli builds the command tree; attached remembers which goFlags commands
// already show their flags to cobra.
type cli struct {
	s        streams
	goFlags  map[*cobra.Command]goFlags
	attached map[*cobra.Command][]string
}

// leaf makes cmd a goFlags command.
func (c *cli) leaf(cmd *cobra.Command, g goFlags) *cobra.Command {
	cmd.DisableFlagParsing = true
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		switch code := g.run(c.s, args); code {
		case 0:
			return nil
		case showHelp:
			return cmd.Help()
		default:
			return exitCode(code)
		}
	}
	c.goFlags[cmd] = g
	return cmd
}

// group is a command that only holds others (see bareGroup).
func group(cmd *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	cmd.AddCommand(subs...)
	return cmd
}

// bareGroup handles a command line naming a group but none of its
// commands: the group's help on stderr and exit 2, as keygate did before
// (cobra would print it on stdout and exit 0). ok is false for any other
// command line.
func bareGroup(root *cobra.Command, args []string, stderr io.Writer) (code int, ok bool) {
	cmd, rest, err := root.Find(args)
	if err != nil || !cmd.HasParent() || cmd.Runnable() || slices.ContainsFunc(args, isHelpFlag) {
		return 0, false
	}
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		fmt.Fprintf(stderr, "keygate: unknown command %q for %q\nRun '%s --help' for usage.\n", rest[0], cmd.CommandPath(), cmd.CommandPath())
		return 2, true
	}
	cmd.SetOut(stderr)
	_ = cmd.Help()
	return 2, true
}

func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// attach shows a goFlags command's flags to cobra, for its help and for
// shell completion, once. Cobra never parses them. It returns the
// command's environment variables.
func (c *cli) attach(cmd *cobra.Command) []string {
	if env, ok := c.attached[cmd]; ok {
		return env
	}
	g, ok := c.goFlags[cmd]
	if !ok {
		return nil
	}
	fs, env := g.flags()
	fs.VisitAll(func(f *flag.Flag) {
		if cmd.Flags().Lookup(f.Name) != nil {
			return
		}
		typ, usage := flag.UnquoteUsage(f)
		pf := &pflag.Flag{Name: f.Name, Usage: usage, Value: shownValue{Value: f.Value, typ: typ}, DefValue: f.DefValue}
		if typ == "" {
			pf.Value, pf.NoOptDefVal = shownValue{Value: f.Value, typ: "bool"}, "true"
		}
		cmd.Flags().AddFlag(pf)
	})
	c.attached[cmd] = env
	return env
}

// attachAll attaches every goFlags command's flags: a completion request
// may name any of them.
func (c *cli) attachAll() {
	for cmd := range c.goFlags {
		c.attach(cmd)
	}
}

// shownValue presents a standard library flag to pflag under the type
// name `flag` would print (string, duration, value; bool for a switch).
type shownValue struct {
	flag.Value
	typ string
}

func (v shownValue) Type() string { return v.typ }

// help is the help of every command: the root's lists every command, a
// goFlags command's shows its flags and environment variables.
func (c *cli) help(root *cobra.Command) func(*cobra.Command, []string) {
	cobraHelp := root.HelpFunc()
	return func(cmd *cobra.Command, args []string) {
		if cmd == root {
			c.rootHelp(root)
			return
		}
		env := c.attach(cmd)
		cobraHelp(cmd, args)
		if len(env) > 0 {
			w := cmd.OutOrStdout()
			fmt.Fprintln(w, "\nEnvironment variables it reads (a flag wins over its variable):")
			fmt.Fprint(w, wrap(env, 100, "  "))
		}
	}
}

// rootHelp lists every command with its one line, sub-commands by their
// full path.
func (c *cli) rootHelp(root *cobra.Command) {
	type line struct{ path, short string }
	var lines []line
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			if sub.HasAvailableSubCommands() {
				walk(sub)
				continue
			}
			lines = append(lines, line{strings.TrimPrefix(sub.CommandPath(), root.Name()+" "), sub.Short})
		}
	}
	walk(root)
	lines = append(lines, line{"help COMMAND", "Print a command's help (as COMMAND --help does)"})
	width := 0
	for _, l := range lines {
		width = max(width, len(l.path))
	}
	w := root.OutOrStdout()
	fmt.Fprintf(w, "%s\n\nUsage:\n  %s COMMAND [flags]\n  %s [serve flags]    (no command runs serve)\n\nCommands:\n", root.Long, root.Name(), root.Name())
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l.path, l.short)
	}
	fmt.Fprintf(w, "\nExamples:\n%s\n\nRun '%s COMMAND --help' for a command's flags and examples.\n", root.Example, root.Name())
}

// wrap joins words into lines of at most width characters, each indented.
func wrap(words []string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, w := range words {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		}
		line += w + " "
	}
	if len(line) > len(indent) {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}

// recordEnv wraps getenv and lists, sorted, the names it was asked for.
func recordEnv(getenv func(string) string) (recording func(string) string, names func() []string) {
	var seen []string
	recording = func(k string) string {
		if !slices.Contains(seen, k) {
			seen = append(seen, k)
		}
		return getenv(k)
	}
	names = func() []string {
		slices.Sort(seen)
		return seen
	}
	return recording, names
}

// parseFlags parses args with fs. It returns ok, or the exit code: showHelp
// for -h, 2 (said on stderr) for arguments it cannot read.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err != nil {
		return flagError(err, fs.Name(), stderr), false
	}
	return 0, true
}

// flagError maps an error reading the arguments to an exit code: showHelp
// for -h, else 2 with the error and where the flags are listed.
func flagError(err error, command string, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		return showHelp
	}
	fmt.Fprintf(stderr, "keygate: %v\nRun '%s --help' for its flags.\n", err, command)
	return 2
}
