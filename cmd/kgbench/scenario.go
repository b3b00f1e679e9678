package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// scenarios are the report's sections, in order. A new scenario is an
// entry here and a file of its own: its measurement, its result type, its
// judge, and its templates in report/NAME.md.tmpl ("section NAME" and its
// targets' rows).
var scenarios = []scenario{
	scenarioOf("latency", runLatency, judgeLatency),
	scenarioOf("concurrency", runConcurrency, judgeConcurrency),
	scenarioOf("checkpoint", runCheckpoint, judgeCheckpoint),
	scenarioOf("store", runStore, nil),
	scenarioOf("routing", runRouting, nil),
	scenarioOf("turnstart", runTurnStart, judgeTurnStart),
	scenarioOf("tab", runTab, judgeTab),
	scenarioOf("compat", runCompat, judgeCompat),
	scenarioOf("secretguard", runSecretGuard, nil),
}

// scenario is one measurement and its section of the report.
type scenario struct {
	// name selects the scenario with -only and names its templates.
	name string
	// run measures it; the result is what its section and judge read.
	run func(ctx context.Context, r *rig) (any, error)
	// judge lists the scenario's targets, judged on its result; result is
	// nil when the scenario did not run (its targets are listed as not
	// run), baseline the result of a previous run (-baseline) or nil.
	judge func(result, baseline any) []target
	// decode reads a result back from a results file.
	decode func(json.RawMessage) (any, error)
}

// scenarioOf types a scenario's functions on its result R; judge may be nil.
func scenarioOf[R any](name string, run func(context.Context, *rig) (*R, error), judge func(result, baseline *R) []target) scenario {
	typed := func(v any) *R { r, _ := v.(*R); return r }
	s := scenario{name: name,
		run: func(ctx context.Context, r *rig) (any, error) { return run(ctx, r) },
		decode: func(raw json.RawMessage) (any, error) {
			r := new(R)
			return r, json.Unmarshal(raw, r)
		},
		judge: func(any, any) []target { return nil },
	}
	if judge != nil {
		s.judge = func(result, baseline any) []target { return judge(typed(result), typed(baseline)) }
	}
	return s
}

func scenarioNames(table []scenario) []string {
	names := make([]string, len(table))
	for i, s := range table {
		names[i] = s.name
	}
	return names
}

// ErrUnknownScenario means -only named a scenario the table does not have.
var ErrUnknownScenario = errors.New("unknown scenario")

// pick returns the scenarios -only names (comma-separated), in the table's
// order; all of them when only is empty.
func pick(table []scenario, only string) ([]scenario, error) {
	if strings.TrimSpace(only) == "" {
		return table, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(scenarioNames(table), n) {
			return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownScenario, n, strings.Join(scenarioNames(table), ", "))
		}
		want[n] = true
	}
	var out []scenario
	for _, s := range table {
		if want[s.name] {
			out = append(out, s)
		}
	}
	return out, nil
}

// rig is what the scenarios share: the clock, the paced fake provider, the
// in-process Keygate stack, the relay and a temporary directory.
type rig struct {
	quick bool
	clk   *clock
	prov  *paced
	stack *stack
	relay *relay
	dir   string
}

func newRig(ctx context.Context, quick bool) (*rig, func(), error) {
	r := &rig{quick: quick, clk: newClock()}
	r.prov = newPaced(r.clk)
	closers := []func(){r.prov.close}
	done := func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	var err error
	if r.dir, err = os.MkdirTemp("", "kgbench-"); err != nil {
		done()
		return nil, nil, err
	}
	closers = append(closers, func() { _ = os.RemoveAll(r.dir) })
	if r.stack, err = newStack(ctx, r.dir, r.prov.srv.URL); err != nil {
		done()
		return nil, nil, err
	}
	closers = append(closers, r.stack.close)
	r.relay = newRelay(r.prov.srv.URL)
	closers = append(closers, r.relay.close)
	return r, done, nil
}

// runAll runs the picked scenarios and writes the report (and the
// results, with -json).
func runAll(o options, picked []scenario, priority string) error {
	ctx := context.Background()
	base, err := readResults(o.baseline)
	if err != nil {
		return err
	}
	r := &report{runInfo: runInfo{Machine: describeMachine(), Started: time.Now().UTC(), Command: commandLine(), LoadStart: loadavg(), Priority: priority},
		Names: scenarioNames(scenarios)}
	rg, done, err := newRig(ctx, o.quick)
	if err != nil {
		return err
	}
	defer done()
	for _, sc := range picked {
		step(sc.name)
		load := startLoad()
		res, err := sc.run(ctx, rg)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		r.Sections = append(r.Sections, section{Name: sc.name, Result: res, Other: load.cores()})
	}
	r.Took, r.LoadEnd = time.Since(r.Started).Round(time.Second), loadavg()
	finish(r, base)
	if err := writeResults(o.json, r); err != nil {
		return err
	}
	return writeReport(o.out, r)
}

// finish numbers the sections, gives each its baseline, and judges every
// scenario's targets (those of scenarios that did not run as not run).
func finish(r *report, base *report) {
	for i := range r.Sections {
		s := &r.Sections[i]
		s.Number = slices.IndexFunc(scenarios, func(sc scenario) bool { return sc.name == s.Name }) + 1
		if b := base.section(s.Name); b != nil {
			s.Baseline, s.Previous = b.Result, &base.runInfo
		}
	}
	r.Targets = nil
	for _, sc := range scenarios {
		var result, baseline any
		if s := r.section(sc.name); s != nil {
			result = s.Result
		}
		if b := base.section(sc.name); b != nil {
			baseline = b.Result
		}
		r.Targets = append(r.Targets, sc.judge(result, baseline)...)
	}
}

// section is the named scenario's section, nil when it did not run (or r
// is nil).
func (r *report) section(name string) *section {
	if r == nil {
		return nil
	}
	return find(r.Sections, func(s section) bool { return s.Name == name })
}

// find returns the first element of xs that match accepts, nil for none.
func find[T any](xs []T, match func(T) bool) *T {
	if i := slices.IndexFunc(xs, match); i >= 0 {
		return &xs[i]
	}
	return nil
}

// results is the JSON form of a run (-json, -baseline).
type results struct {
	Run      runInfo
	Sections []struct {
		Name   string
		Other  float64
		Result json.RawMessage
	}
}

func writeResults(path string, r *report) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(struct {
		Run      runInfo
		Sections []section
	}{r.runInfo, r.Sections}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	return os.WriteFile(path, b, 0o644)
}

// readResults reads a previous run's results ("" for none); sections of
// scenarios this program no longer has are left out.
func readResults(path string) (*report, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	var saved results
	if err := json.Unmarshal(b, &saved); err != nil {
		return nil, fmt.Errorf("read baseline %s: %w", path, err)
	}
	out := &report{runInfo: saved.Run}
	for _, s := range saved.Sections {
		sc := find(scenarios, func(sc scenario) bool { return sc.name == s.Name })
		if sc == nil {
			continue
		}
		res, err := sc.decode(s.Result)
		if err != nil {
			return nil, fmt.Errorf("read baseline %s, %s: %w", path, s.Name, err)
		}
		out.Sections = append(out.Sections, section{Name: s.Name, Result: res, Other: s.Other})
	}
	return out, nil
}

func step(name string) {
	fmt.Fprintf(os.Stderr, "kgbench: %s (%s)\n", name, time.Now().UTC().Format(time.TimeOnly))
}
