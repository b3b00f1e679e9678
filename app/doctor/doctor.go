package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Status is the verdict of a check.
type Status uint8

// Verdicts. Only Fail makes a report fail: Warn says something an operator
// should know that does not stop Keygate, Skip that the check does not
// apply here (or needs what an earlier check found broken).
const (
	Pass Status = iota + 1
	Warn
	Fail
	Skip
)

// String is the verdict as the report prints it.
func (s Status) String() string {
	switch s {
	case Pass:
		return "ok"
	case Warn:
		return "warn"
	case Fail:
		return "FAIL"
	case Skip:
		return "skip"
	default:
		return "?"
	}
}

// Result is one check's verdict: what it found (Detail) and, unless it
// passed, what fixes it (Fix). Neither ever holds a secret.
type Result struct {
	Status Status
	Detail string
	Fix    string
}

// Ok builds a passing result.
func Ok(detail string) Result { return Result{Status: Pass, Detail: detail} }

// Failed builds a failing result with the fix to apply.
func Failed(detail, fix string) Result { return Result{Status: Fail, Detail: detail, Fix: fix} }

// Warned builds a warning with the fix to apply.
func Warned(detail, fix string) Result { return Result{Status: Warn, Detail: detail, Fix: fix} }

// Skipped builds the result of a check that did not apply.
func Skipped(detail string) Result { return Result{Status: Skip, Detail: detail} }

func failedf(fix, format string, a ...any) Result { return Failed(fmt.Sprintf(format, a...), fix) }

// Check is one line of the report. Run decides it; a check whose lines are
// known only when it runs (one per model, once the store is open) sets
// Expand instead, which returns them, or a result when there are none.
type Check struct {
	Name   string
	Run    func(ctx context.Context) Result
	Expand func(ctx context.Context) ([]Check, Result)
}

// Line is a check's name and its result.
type Line struct {
	Name string
	Result
}

// Report is every line, in the order the checks ran.
type Report []Line

// Run runs checks in order, each bounded by limit (a check that does not
// answer in time fails saying so), and expands those that set Expand.
// Checks may depend on what earlier ones found: they run one at a time.
func Run(ctx context.Context, checks []Check, limit time.Duration) Report {
	var r Report
	for _, c := range checks {
		if c.Expand != nil {
			cctx, cancel := context.WithTimeout(ctx, limit)
			more, none := c.Expand(cctx)
			cancel()
			if len(more) == 0 {
				r = append(r, Line{Name: c.Name, Result: none})
				continue
			}
			r = append(r, Run(ctx, more, limit)...)
			continue
		}
		r = append(r, Line{Name: c.Name, Result: runOne(ctx, c, limit)})
	}
	return r
}

// runOne runs c within limit; a check that overruns is abandoned (its
// context is cancelled) and fails.
func runOne(ctx context.Context, c Check, limit time.Duration) Result {
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- c.Run(cctx) }()
	select {
	case res := <-done:
		return res
	case <-cctx.Done():
		return failedf("Check that what it reaches answers, then run keygate doctor again.", "no answer within %s", limit)
	}
}

// Failed counts the lines that failed.
func (r Report) Failed() int { return r.count(Fail) }

func (r Report) count(s Status) int {
	n := 0
	for _, l := range r {
		if l.Status == s {
			n++
		}
	}
	return n
}

// Write prints the report: one line per check with its verdict and what it
// found, the fix indented below, and a summary.
func (r Report) Write(w io.Writer) error {
	width := 0
	for _, l := range r {
		width = max(width, len(l.Name))
	}
	var b strings.Builder
	for _, l := range r {
		fmt.Fprintf(&b, "[%-4s] %-*s  %s\n", l.Status, width, l.Name, l.Detail)
		if l.Fix != "" {
			fmt.Fprintf(&b, "       %*s  fix: %s\n", width, "", l.Fix)
		}
	}
	fmt.Fprintf(&b, "\n%d checks: %d ok, %d failed, %d warned, %d skipped.\n",
		len(r), r.count(Pass), r.count(Fail), r.count(Warn), r.count(Skip))
	_, err := io.WriteString(w, b.String())
	return err
}
