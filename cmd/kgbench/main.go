package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"testing"
	"time"
)

func main() {
	// The Keygate child of the concurrency scenario (see child.go); not a
	// flag of the command line's, so it is not in -help.
	if len(os.Args) == 3 && os.Args[1] == "-"+serveKeygateFlag {
		if err := serveKeygate(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "kgbench child:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "-"+serveAppFlag {
		if err := serveApp(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "kgbench app child:", err)
			os.Exit(1)
		}
		return
	}
	if err := execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kgbench:", err)
		os.Exit(1)
	}
}

// execute parses the flags, starts the requested recorders and runs the
// scenarios; the recorders stop before main exits.
func execute() error {
	testing.Init()
	out := flag.String("out", "BENCHMARKS.md", "file the report is written to")
	quick := flag.Bool("quick", false, "smaller runs, to try the program out (not for the committed report)")
	only := flag.String("only", "", "run one scenario: latency, concurrency, checkpoint, store, routing or turnstart")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	nice := flag.Int("nice", 0, "nice value for the whole run (negative needs root): keeps other work on a shared machine out of the tails")
	traceTo := flag.String("trace", "", "write a runtime execution trace of the whole run to this file")
	flag.StringVar(&heapProfile, "memprofile", "", "write heap profiles (FILE.N) while N Keygate turns stream")
	flag.Parse()
	stopTrace, err := record(*traceTo, trace.Start, trace.Stop)
	if err != nil {
		return err
	}
	defer stopTrace()
	stopProfile, err := record(*profile, pprof.StartCPUProfile, pprof.StopCPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	return runAll(*out, *quick, *only, raisePriority(*nice))
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

// report collects every scenario's results for the markdown.
type report struct {
	Machine      machine
	Started      time.Time
	Took         time.Duration
	Command      string
	Latency      latencySettings
	LatencyRows  []latencyRow
	Concurrency  []concRow
	CheckpointAt []int
	Checkpoint   []checkpointRow
	Stores       []storeRow
	Routing      *routingReport
	TurnStart    *turnStartReport
	Notes        []string
	// Other* are the other processes' average busy cores during a scenario.
	OtherLatency, OtherCheckpoint, OtherStore, OtherRouting float64
	// Priority says how the process was scheduled.
	Priority string
	// LoadStart and LoadEnd are /proc/loadavg at the start and the end.
	LoadStart, LoadEnd string
}

func runAll(out string, quick bool, only, priority string) error {
	ctx := context.Background()
	r := &report{Machine: describeMachine(), Started: time.Now().UTC(), Command: commandLine(), LoadStart: loadavg(), Priority: priority}
	clk := newClock()
	prov := newPaced(clk)
	defer prov.close()
	dir, err := os.MkdirTemp("", "kgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := newStack(ctx, dir, prov.srv.URL)
	if err != nil {
		return err
	}
	defer s.close()
	rel := newRelay(prov.srv.URL)
	defer rel.close()
	want := func(name string) bool { return only == "" || only == name }

	r.Latency = latencySettings{Turns: 40, Warmup: 5, Tokens: 100, Interval: 2 * time.Millisecond}
	if quick {
		r.Latency.Turns = 5
	}
	if want("latency") {
		step("latency")
		load := startLoad()
		if r.LatencyRows, err = measureLatency(ctx, s, prov, rel, clk, r.Latency); err != nil {
			return fmt.Errorf("latency: %w", err)
		}
		r.OtherLatency = load.cores()
	}
	// The paces keep the whole process (fake provider, Keygate and the
	// simulated clients) under the 2 cores' capacity, at a few hundred µs of
	// CPU per delivered token, so the figures show latency, not a backlog:
	// 100 turns × 25 tokens/s and 1,000 turns × 2.5 tokens/s.
	levels := []concSettings{{N: 1, Tokens: 200, Interval: 5 * time.Millisecond}, {N: 100, Tokens: 80, Interval: 40 * time.Millisecond},
		{N: 1000, Tokens: 30, Interval: 400 * time.Millisecond}}
	if quick {
		levels[2].N = 200
	}
	if want("concurrency") {
		own, err := startOwnProcess(prov.srv.URL)
		if err != nil {
			return err
		}
		defer own.close()
		for _, l := range levels {
			step(fmt.Sprintf("concurrency %d", l.N))
			row, err := measureConcurrency(ctx, s, own, prov, rel, clk, l)
			if err != nil {
				return fmt.Errorf("concurrency %d: %w", l.N, err)
			}
			r.Concurrency = append(r.Concurrency, row)
		}
	}
	r.CheckpointAt = []int{10, 100, 1000}
	if quick {
		r.CheckpointAt = []int{10, 100}
	}
	if want("checkpoint") {
		step("checkpoint")
		load := startLoad()
		if r.Checkpoint, err = measureCheckpoints(ctx, s, prov, clk, r.CheckpointAt, checkpointWindow, checkpointTokens); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		r.OtherCheckpoint = load.cores()
	}
	if want("store") {
		step("store")
		load := startLoad()
		r.Stores = measureStores(ctx)
		r.OtherStore = load.cores()
	}
	if want("routing") {
		step("routing")
		load := startLoad()
		settings := routingSettings{Failovers: 40, Turns: 20}
		if quick {
			settings.Failovers = 10
		}
		sub, err := os.MkdirTemp(dir, "routing-")
		if err != nil {
			return err
		}
		rr, err := measureRouting(ctx, sub, settings)
		if err != nil {
			return fmt.Errorf("routing: %w", err)
		}
		r.Routing, r.OtherRouting = &rr, load.cores()
	}
	if want("turnstart") {
		step("turn start")
		set := turnStartSettings{Levels: []int{1, 16, 64}, Rounds: []int{4, 2, 1}, Tokens: 2000, Interval: 5 * time.Millisecond,
			FirstDelay: 300 * time.Millisecond, History: 1000, Flood: 64}
		if quick {
			set.Rounds, set.Tokens, set.History = []int{2, 1, 1}, 400, 100
		}
		ts, err := measureTurnStart(ctx, prov, clk, set)
		if err != nil {
			return fmt.Errorf("turn start: %w", err)
		}
		r.TurnStart = &ts
	}
	r.Took, r.LoadEnd = time.Since(r.Started), loadavg()
	return writeReport(out, r)
}

// checkpointWindow turns are averaged at each measured length; each turn
// streams checkpointTokens tokens without pacing.
const (
	checkpointWindow = 5
	checkpointTokens = 10
)

func step(name string) {
	fmt.Fprintf(os.Stderr, "kgbench: %s (%s)\n", name, time.Now().UTC().Format(time.TimeOnly))
}

func commandLine() string {
	if c := os.Getenv("KGBENCH_COMMAND"); c != "" {
		return c
	}
	return strings.TrimSpace("go run ./cmd/kgbench " + strings.Join(os.Args[1:], " "))
}
