package archspec_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Package docs say what a package imports in one checked form, a sentence
// of its doc.go comment:
//
//	Imports: the standard library, domain, ports and go.uber.org/zap.
//
// The list is complete: every production import of the package is covered
// by an item, and every item covers at least one import. An item is "the
// standard library" (always allowed, so listing it says "nothing else"), a
// folder of this module written from its root ("domain", "ports",
// "domain/identity", "adapters/upstream"; its subpackages included), or a
// third-party package path ("go.uber.org/zap", its subpackages included).
// A parenthesis after an item says why and is not read. The list ends at
// the sentence's full stop or at a semicolon.
//
// A claim in prose ("it imports only domain and ports", "it depends on
// adapters/ca") is refused: nothing checks it, so it goes stale.

// docImportsProblem is one package doc that misstates its imports.
type docImportsProblem struct{ Pkg, Why string }

func (p docImportsProblem) String() string { return p.Pkg + ": " + p.Why }

// proseImportClaim matches a statement in prose of what the package
// itself imports. Statements of who imports the package ("only specs
// import it") are not claims about its imports.
var proseImportClaim = regexp.MustCompile(`(?i)\b(it|this package|the package|which)\s+(only\s+)?(imports|import only|depends on|depend on)\b`)

const stdItem = "the standard library"

// packageComment is the text of the package comment of a doc.go, comment
// markers removed and lines joined.
func packageComment(src string) string {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, "package ") {
			break
		}
		if strings.HasPrefix(l, "//") {
			lines = append(lines, l)
		} else {
			lines = lines[:0]
		}
	}
	text, _ := joined(lines)
	return text
}

// importsItems returns the items of the Imports: sentence of a package
// comment, whether it has one, and an error for a list it cannot read.
func importsItems(comment string) (items []string, ok bool, err error) {
	_, rest, ok := strings.Cut(comment, "Imports:")
	if !ok {
		return nil, false, nil
	}
	var list strings.Builder
	depth := 0
scan:
	for i, r := range rest {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth > 0:
		case r == ';', r == '.' && (i+1 == len(rest) || unicode.IsSpace(rune(rest[i+1]))):
			break scan
		default:
			list.WriteRune(r)
		}
	}
	for _, part := range regexp.MustCompile(`,|\band\b`).Split(list.String(), -1) {
		item := strings.Join(strings.Fields(part), " ")
		switch {
		case item == "":
		case item == stdItem, strings.Contains(item, "."), slices.Contains(moduleFolders, strings.Split(item, "/")[0]):
			if item != stdItem && strings.Contains(item, " ") {
				return nil, true, fmt.Errorf("cannot read %q in the Imports: list", item)
			}
			items = append(items, item)
		default:
			return nil, true, fmt.Errorf("cannot read %q in the Imports: list (write the standard library, a module folder such as domain/llm, or a package path)", item)
		}
	}
	if len(items) == 0 {
		return nil, true, fmt.Errorf("the Imports: list is empty")
	}
	return items, true, nil
}

// moduleFolders are the top-level folders of Keygate's Go code.
var moduleFolders = []string{"domain", "ports", "app", "adapters", "gen", "cmd"}

// covers reports whether an Imports: item covers the import path imp.
func covers(item, imp string) bool {
	if item == stdItem {
		return isStd(imp)
	}
	if !strings.Contains(strings.Split(item, "/")[0], ".") {
		item = module + "/" + item
	}
	return imp == item || strings.HasPrefix(imp, item+"/")
}

// checkDocImports compares one package comment with the package's imports.
func checkDocImports(path, comment string, imports []string) []docImportsProblem {
	var out []docImportsProblem
	add := func(format string, a ...any) {
		out = append(out, docImportsProblem{Pkg: path, Why: fmt.Sprintf(format, a...)})
	}
	if m := proseImportClaim.FindString(comment); m != "" {
		add("states its imports in prose (%q); write them as one checked sentence, Imports: a, b and c.", m)
	}
	items, ok, err := importsItems(comment)
	switch {
	case err != nil:
		add("%v", err)
		return out
	case !ok:
		return out
	}
	for _, it := range items {
		if it != stdItem && !slices.ContainsFunc(imports, func(imp string) bool { return covers(it, imp) }) {
			add("names %s in Imports: but imports nothing there", it)
		}
	}
	for _, imp := range imports {
		if !isStd(imp) && !slices.ContainsFunc(items, func(it string) bool { return covers(it, imp) }) {
			add("imports %s, which its Imports: sentence does not name", imp)
		}
	}
	return out
}

var _ = Describe("Package docs on their imports", func() {
	It("state them only in a checked Imports: sentence, and that sentence lists exactly what the package imports", func() {
		graph, err := loadGraph()
		Expect(err).NotTo(HaveOccurred())
		imports := map[string][]string{}
		for _, p := range graph {
			imports[p.Path] = p.Imports
		}
		root := repoRoot()
		var problems []string
		checked := 0
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == "gen" || d.Name() == "node_modules" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Name() != "doc.go" {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pkgPath := module + "/" + filepath.ToSlash(filepath.Dir(rel))
			imps, listed := imports[pkgPath]
			if !listed {
				return fmt.Errorf("go list did not list %s", pkgPath)
			}
			comment := packageComment(string(src))
			if _, ok, _ := importsItems(comment); ok {
				checked++
			}
			for _, p := range checkDocImports(strings.TrimPrefix(pkgPath, module+"/"), comment, imps) {
				problems = append(problems, p.String())
			}
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(problems).To(BeEmpty())
		Expect(checked).To(BeNumerically(">", 10), "the walk found the Imports: sentences")
	})

	DescribeTable("the check",
		func(comment string, imports []string, want []string) {
			var got []string
			for _, p := range checkDocImports("app/x", comment, imports) {
				got = append(got, p.Why)
			}
			if want == nil {
				Expect(got).To(BeEmpty())
			} else {
				Expect(got).To(HaveLen(len(want)))
				for i, w := range want {
					Expect(got[i]).To(ContainSubstring(w))
				}
			}
		},
		Entry("accepts a list that covers every import",
			"Place in the hexagon: app. Imports: domain, ports (its stores) and go.uber.org/zap. The rest.",
			[]string{"context", "keygate/domain/llm", "keygate/ports", "go.uber.org/zap/zapcore"}, nil),
		Entry("refuses a list that leaves an import out (only domain and ports, yet zap)",
			"Imports: domain and ports.", []string{"keygate/domain/llm", "keygate/ports", "go.uber.org/zap"},
			[]string{"imports go.uber.org/zap"}),
		Entry("refuses an item the package does not import",
			"Imports: ports, adapters/ca and adapters/upstream; the root wires it.", []string{"keygate/ports", "keygate/adapters/upstream"},
			[]string{"names adapters/ca"}),
		Entry("reads only the standard library as nothing else",
			"Imports: the standard library.", []string{"strings", "keygate/domain/llm"}, []string{"imports keygate/domain/llm"}),
		Entry("does not take a folder for its namesake's sibling",
			"Imports: adapters/cursor.", []string{"keygate/adapters/cursorproxy"},
			[]string{"names adapters/cursor", "imports keygate/adapters/cursorproxy"}),
		Entry("ends the list at a full stop, not at a dot inside a path",
			"Imports: go.uber.org/zap. It logs.", []string{"go.uber.org/zap"}, nil),
		Entry("refuses prose about its imports",
			"Place in the hexagon: app. It imports only domain and ports.", []string{"keygate/ports"},
			[]string{"in prose"}),
		Entry("refuses prose that names a dependency",
			"It depends on adapters/ca for certificates.", []string{"keygate/ports"}, []string{"in prose"}),
		Entry("lets a doc say who imports the package",
			"Test support: only specs import it; production code never imports it.", []string{"keygate/ports"}, nil),
		Entry("refuses an item it cannot read",
			"Imports: the HTTP header grammar.", []string{"keygate/ports"}, []string{"cannot read"}),
	)
})
