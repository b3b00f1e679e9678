package archspec_test

import (
	"fmt"
	"slices"
	"strings"
)

// pkg is one package of the graph: its import path and its non-test imports.
type pkg struct {
	Path    string
	Imports []string
}

// violation is one import that breaks a layering rule.
type violation struct {
	From, To, Rule string
}

func (v violation) String() string { return fmt.Sprintf("%s imports %s: %s", v.From, v.To, v.Rule) }

const module = "keygate"

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && first != module
}

func under(path, dir string) bool {
	p := module + "/" + dir
	return path == p || strings.HasPrefix(path, p+"/")
}

// sqlcOwners maps each generated sqlc package to the one adapter that may
// import it: generated row types must not leak into the rest of Keygate.
var sqlcOwners = map[string]string{
	"gen/sqlc/sqlitedb": "adapters/sqlite",
	"gen/sqlc/pgdb":     "adapters/postgres",
}

// testSupport packages exist to be imported by specs; they may use test
// libraries, but their production imports obey the same layer rules.
var testSupport = []string{"ginkgo", "gomega"}

func isTestLib(imp string) bool {
	return slices.ContainsFunc(testSupport, func(s string) bool { return strings.Contains(imp, "/onsi/"+s) })
}

// check applies every layering rule to the graph.
func check(graph []pkg) []violation {
	var out []violation
	for _, p := range graph {
		for _, imp := range p.Imports {
			out = append(out, checkImport(p.Path, imp)...)
		}
	}
	return out
}

func checkImport(from, imp string) []violation {
	var out []violation
	add := func(rule string) { out = append(out, violation{From: from, To: imp, Rule: rule}) }
	switch {
	case under(from, "domain"):
		if !isStd(imp) && !under(imp, "domain") {
			add("domain imports only the standard library and domain")
		}
	case under(from, "ports/porttest"):
		if !isStd(imp) && !under(imp, "domain") && !under(imp, "ports") && !isTestLib(imp) {
			add("ports/porttest imports only domain, ports, the standard library and ginkgo/gomega")
		}
	case under(from, "ports"):
		if !isStd(imp) && !under(imp, "domain") && !under(imp, "ports") {
			add("ports imports only domain and the standard library")
		}
	case from != module+"/app" && under(from, "app"):
		if under(imp, "adapters") {
			add("app use cases never import adapters; only the composition root (package app) does")
		}
		if under(imp, "gen") {
			add("app use cases never import generated code")
		}
	}
	for gen, owner := range sqlcOwners {
		if under(imp, gen) && !under(from, owner) && !under(from, gen) {
			add(fmt.Sprintf("%s is private to %s", gen, owner))
		}
	}
	return out
}
