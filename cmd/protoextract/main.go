package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"keygate/cmd/protoextract/schema"
)

// errStale means -check found a committed file that differs from a fresh
// extraction.
var errStale = errors.New("proto/cursor is stale; run task proto:extract")

// rootFlag collects repeated -root pkg.Name flags.
type rootFlag []string

func (r *rootFlag) String() string     { return strings.Join(*r, ",") }
func (r *rootFlag) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "protoextract:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("protoextract", flag.ContinueOnError)
	out := fs.String("out", "proto/cursor", "output root; files go to <out>/<package path>/")
	check := fs.Bool("check", false, "compare with the files under -out instead of writing them")
	var extra rootFlag
	fs.Var(&extra, "root", "extra root definition as pkg.Name (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("usage: protoextract [-out dir] [-root pkg.Name]... [-check] schema.proto [schema.proto ...]")
	}
	plans, err := withExtraRoots(schema.KeygatePlans(), extra)
	if err != nil {
		return err
	}
	stale := false
	for _, input := range fs.Args() {
		same, err := extractOne(input, *out, plans, *check, log)
		if err != nil {
			return err
		}
		stale = stale || !same
	}
	if *check && stale {
		return errStale
	}
	return nil
}

// withExtraRoots adds each pkg.Name root to the plan of its package.
func withExtraRoots(plans []schema.Plan, extra []string) ([]schema.Plan, error) {
	for _, root := range extra {
		i := strings.LastIndexByte(root, '.')
		found := false
		for p := range plans {
			if i > 0 && plans[p].Package == root[:i] {
				plans[p].Roots = append(plans[p].Roots, root[i+1:])
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("root %q: no plan for its package", root)
		}
	}
	return plans, nil
}

// extractOne extracts one input and writes (or, with check, compares) its
// output. It reports whether the file on disk already had these bytes.
func extractOne(input, out string, plans []schema.Plan, check bool, log io.Writer) (bool, error) {
	began := time.Now()
	src, err := os.ReadFile(input)
	if err != nil {
		return false, fmt.Errorf("read schema: %w", err)
	}
	f, err := schema.Parse(string(src))
	if err != nil {
		return false, fmt.Errorf("%s: %w", input, err)
	}
	plan, ok := schema.PlanFor(plans, f.Package)
	if !ok {
		return false, fmt.Errorf("%s: no plan for package %s", input, f.Package)
	}
	res, err := schema.Extract(f, input, plan)
	if err != nil {
		return false, err
	}
	path := filepath.Join(out, filepath.FromSlash(plan.Output))
	old, err := os.ReadFile(path)
	same := err == nil && bytes.Equal(old, res.Text)
	if !check && !same {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, fmt.Errorf("create output dir: %w", err)
		}
		if err := os.WriteFile(path, res.Text, 0o644); err != nil {
			return false, fmt.Errorf("write schema: %w", err)
		}
	}
	fmt.Fprintf(log, "%s: %d -> %d bytes, %d/%d top-level definitions, %d/%d messages, declared %v, %s, %s\n",
		path, len(src), len(res.Text), res.KeptDecls, res.TotalDecls, res.KeptMessages, res.TotalMessages,
		res.Declared, status(check, same), time.Since(began).Round(time.Millisecond))
	return same, nil
}

func status(check, same bool) string {
	switch {
	case same:
		return "unchanged"
	case check:
		return "STALE"
	default:
		return "written"
	}
}
