package main

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"strings"
	"text/template"
	"time"
)

// report is one run: where and how it ran, the sections of the scenarios
// that ran and every scenario's targets. The report templates read it.
type report struct {
	runInfo
	// Names are every scenario's names, for the report's how-to.
	Names    []string
	Sections []section
	Targets  []target
}

// runInfo says where and how a run happened.
type runInfo struct {
	Machine machine
	Started time.Time
	// Took is rounded to the second.
	Took    time.Duration
	Command string
	// Priority says how the process was scheduled.
	Priority string
	// LoadStart and LoadEnd are /proc/loadavg at the start and the end.
	LoadStart, LoadEnd string
}

// section is what one scenario measured.
type section struct {
	// Name is the scenario's; Number its place in the scenario table.
	Name   string
	Number int
	// Result is what the scenario's run returned.
	Result any
	// Other is the other processes' average busy cores while it ran.
	Other float64
	// Baseline is the same scenario's result in the run -baseline names
	// (nil without one), Previous that run's description; neither is
	// written to this run's results.
	Baseline any      `json:"-"`
	Previous *runInfo `json:"-"`
}

// target is one goal, judged on this run's numbers.
type target struct {
	// Row names the template ("target ROW") that writes the target's row
	// of the targets table; Why, when set, the one ("why WHY") that
	// explains a judged target's figures below the table. Both read Data.
	Row, Why string
	// Judged is false when the scenario did not run (or, with Unjudged
	// set, had nothing to be judged against).
	Judged, Met bool
	Unjudged    string
	Data        any
}

// Verdict is the target's verdict column.
func (t target) Verdict() string {
	switch {
	case t.Judged && t.Met:
		return "**met**"
	case t.Judged:
		return "**missed**"
	case t.Unjudged != "":
		return t.Unjudged
	}
	return "not run"
}

//go:embed report/*.md.tmpl
var reportFiles embed.FS

// reportTemplate is every template of report/: report.md.tmpl writes the
// whole report; each scenario's file defines "section NAME" and its
// targets' "target ..." and "why ..." templates.
var reportTemplate = mustParseReport()

func mustParseReport() *template.Template {
	var t *template.Template
	// include executes the named template into the text: the template action
	// wants a constant name, a section's or target's is data.
	include := func(name string, data any) (string, error) {
		var b bytes.Buffer
		err := t.ExecuteTemplate(&b, name, data)
		return b.String(), err
	}
	t = template.Must(template.New("report").Funcs(template.FuncMap{
		"include": include,
		"us":      us,
		"ms":      ms,
		"kib":     kib,
		"mib":     mib,
		// Arithmetic the prose needs: on durations, bytes and floats.
		"sub64":  func(a, b int64) int64 { return a - b },
		"sub":    func(a, b time.Duration) time.Duration { return a - b },
		"divf":   func(a, b float64) float64 { return a / b },
		"mulf":   func(a, b float64) float64 { return a * b },
		"times":  func(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) },
		"mul":    func(a time.Duration, n int) time.Duration { return a * time.Duration(n) },
		"div":    func(a time.Duration, n int) time.Duration { return a / time.Duration(max(n, 1)) },
		"join":   strings.Join,
		"phases": func() []string { return phaseNames[:] },
		// The names the prose quotes, kept where the code defines them.
		"keygateChild": func() string { return keygateChild.name },
		"appChild":     func() string { return appChild.name },
		"inProcess":    func() string { return pathInProcess },
		"ownProcess":   func() string { return pathOwnProcess },
	}).ParseFS(reportFiles, "report/*.md.tmpl"))
	return t
}

// render writes r as markdown.
func render(r *report) ([]byte, error) {
	var b bytes.Buffer
	if err := reportTemplate.ExecuteTemplate(&b, "report.md.tmpl", r); err != nil {
		return nil, fmt.Errorf("render report: %w", err)
	}
	return b.Bytes(), nil
}

func writeReport(path string, r *report) error {
	b, err := render(r)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
