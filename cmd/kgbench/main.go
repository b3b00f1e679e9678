package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"testing"
)

func main() {
	if err := execute(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kgbench:", err)
		os.Exit(1)
	}
}

// ErrUsage means the command line names no subcommand kgbench has, or
// gives the benchmark's flags to one.
var ErrUsage = errors.New("usage: kgbench [flags], or kgbench SUBCOMMAND [its flags]")

// options are the benchmark's flags.
type options struct {
	out, only, cpuProfile, trace, json, baseline string
	quick                                        bool
	nice                                         int
}

// flags defines the benchmark's flags on a new flag set.
func flags(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kgbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kgbench [flags]\n       kgbench %s|%s -h   (the children kgbench starts of itself)\n", keygateChild.name, appChild.name)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.out, "out", "BENCHMARKS.md", "file the report is written to")
	fs.BoolVar(&o.quick, "quick", false, "smaller runs, to try the program out (not for the committed report)")
	fs.StringVar(&o.only, "only", "", "run only these scenarios, comma-separated: "+strings.Join(scenarioNames(scenarios), ", "))
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.IntVar(&o.nice, "nice", 0, "nice value for the whole run (negative needs root): keeps other work on a shared machine out of the tails")
	fs.StringVar(&o.trace, "trace", "", "write a runtime execution trace of the whole run to this file")
	fs.StringVar(&heapProfile, "memprofile", "", "write heap profiles (FILE.N) while N Keygate turns stream")
	fs.StringVar(&o.json, "json", "", "also write this run's results to this file (JSON), for a later run's -baseline")
	fs.StringVar(&o.baseline, "baseline", "", "a previous run's -json file: the report compares this run with it where a target asks for no regression")
	return fs
}

// execute parses the command line: a child's subcommand, or the benchmark's
// flags; the recorders stop before it returns.
func execute(args []string, stderr io.Writer) error {
	var o options
	fs := flags(&o, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		c, ok := childNamed(fs.Arg(0))
		if !ok || fs.NFlag() > 0 {
			return fmt.Errorf("%w: %q", ErrUsage, fs.Args())
		}
		return c.main(fs.Args()[1:], stderr)
	}
	picked, err := pick(scenarios, o.only)
	if err != nil {
		return err
	}
	// The store scenario runs testing.Benchmark, which reads the testing
	// package's flags.
	testing.Init()
	stopTrace, err := record(o.trace, trace.Start, trace.Stop)
	if err != nil {
		return err
	}
	defer stopTrace()
	stopProfile, err := record(o.cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	return runAll(o, picked, raisePriority(o.nice))
}

// record starts a recorder (CPU profile, execution trace) writing to path,
// none when path is empty, and returns the function that stops it.
func record(path string, start func(io.Writer) error, stop func()) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}, err
	}
	if err := start(f); err != nil {
		_ = f.Close()
		return func() {}, fmt.Errorf("record %s: %w", path, err)
	}
	return func() { stop(); _ = f.Close() }, nil
}

func commandLine() string {
	if c := os.Getenv("KGBENCH_COMMAND"); c != "" {
		return c
	}
	return strings.TrimSpace("go run ./cmd/kgbench " + strings.Join(os.Args[1:], " "))
}
