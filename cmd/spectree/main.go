package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

func main() {
	root := flag.String("root", ".", "print suite folders relative to this directory")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: spectree [-root dir] report.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	abs, err := filepath.Abs(*root)
	if err == nil {
		err = run(os.Stdout, flag.Arg(0), abs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "spectree:", err)
		os.Exit(1)
	}
}

// errSuiteFailed means a suite of the report did not run; the tree is
// printed anyway.
var errSuiteFailed = errors.New("a suite did not run")

func run(w io.Writer, reportPath, root string) error {
	b, err := os.ReadFile(reportPath)
	if err != nil {
		return fmt.Errorf("read report: %w", err)
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return fmt.Errorf("decode report %s: %w", reportPath, err)
	}
	return render(w, reports, root)
}

// node is a container (children set) or a spec (children nil) of the tree.
type node struct {
	text     string
	at       types.CodeLocation
	children []*node
}

func (n *node) child(text string, at types.CodeLocation) *node {
	for _, c := range n.children {
		if c.children != nil && c.text == text && c.at == at {
			return c
		}
	}
	c := &node{text: text, at: at, children: []*node{}}
	n.children = append(n.children, c)
	return c
}

// render writes one tree per suite, suites ordered by folder.
func render(w io.Writer, reports []types.Report, root string) error {
	slices.SortFunc(reports, func(a, b types.Report) int { return cmp.Compare(a.SuitePath, b.SuitePath) })
	var failed error
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		dir := r.SuitePath
		if rel, err := filepath.Rel(root, r.SuitePath); err == nil && !strings.HasPrefix(rel, "..") {
			dir = filepath.ToSlash(rel)
		}
		head := dir
		if r.SuiteDescription != "" {
			head += ": " + r.SuiteDescription
		}
		if !r.SuiteSucceeded {
			head += " (did not run: " + strings.Join(r.SpecialSuiteFailureReasons, "; ") + ")"
			failed = errSuiteFailed
		}
		fmt.Fprintln(w, head)
		tree := &node{children: []*node{}}
		for _, s := range r.SpecReports {
			if !s.LeafNodeType.Is(types.NodeTypeIt) {
				continue
			}
			n := tree
			for j, text := range s.ContainerHierarchyTexts {
				var at types.CodeLocation
				if j < len(s.ContainerHierarchyLocations) {
					at = s.ContainerHierarchyLocations[j]
				}
				n = n.child(text+labels(s.ContainerHierarchyLabels, j), at)
			}
			leaf := s.LeafNodeText + labelList(s.LeafNodeLabels)
			if s.State.Is(types.SpecStatePending) {
				leaf += " (pending)"
			}
			n.children = append(n.children, &node{text: leaf, at: s.LeafNodeLocation})
		}
		sortTree(tree)
		writeTree(w, tree, "")
	}
	return failed
}

func labels(all [][]string, i int) string {
	if i < len(all) {
		return labelList(all[i])
	}
	return ""
}

func labelList(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return " [" + strings.Join(ls, ", ") + "]"
}

// sortTree orders every level as the source does: by file, then line.
// Ginkgo randomizes the order of top-level containers when it runs.
func sortTree(n *node) {
	slices.SortStableFunc(n.children, func(a, b *node) int {
		return cmp.Or(cmp.Compare(a.at.FileName, b.at.FileName), cmp.Compare(a.at.LineNumber, b.at.LineNumber))
	})
	for _, c := range n.children {
		sortTree(c)
	}
}

func writeTree(w io.Writer, n *node, indent string) {
	for i, c := range n.children {
		branch, next := "├── ", "│   "
		if i == len(n.children)-1 {
			branch, next = "└── ", "    "
		}
		fmt.Fprintln(w, indent+branch+c.text)
		writeTree(w, c, indent+next)
	}
}
