package archspec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// loadGraph lists every package of the module with its non-test imports,
// once per run of the suite.
var loadGraph = sync.OnceValues(listGraph)

func listGraph() ([]pkg, error) {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	if err := touchSources(root); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.Join(err, errors.New(stderr.String()))
	}
	var graph []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		graph = append(graph, pkg{Path: p.ImportPath, Imports: p.Imports})
	}
	return graph, nil
}

// touchSources stats every Go file of the module. Go's test cache cannot
// see what the `go list` subprocess reads, but it records the files a test
// stats itself, so a change to any source invalidates a cached pass.
func touchSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || (d.Name() != "." && strings.HasPrefix(d.Name(), "."))) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path)
		}
		return err
	})
}

var _ = Describe("The hexagon", func() {
	Describe("Keygate's own package graph", func() {
		It("has no import that crosses a layer the wrong way", func() {
			graph, err := loadGraph()
			Expect(err).NotTo(HaveOccurred())
			Expect(graph).To(ContainElement(HaveField("Path", "keygate/domain/llm")), "go list saw the domain")
			Expect(check(graph)).To(BeEmpty())
		})
	})

	DescribeTable("layering rules",
		func(from, imp string, allowed bool) {
			v := check([]pkg{{Path: from, Imports: []string{imp}}})
			if allowed {
				Expect(v).To(BeEmpty())
			} else {
				Expect(v).To(HaveLen(1), "expected %s → %s to be rejected", from, imp)
			}
		},
		Entry("domain may import the standard library", "keygate/domain/conversation", "crypto/sha256", true),
		Entry("domain may import other domain packages", "keygate/domain/conversation", "keygate/domain/llm", true),
		Entry("domain may not import a third-party module", "keygate/domain/llm", "go.uber.org/zap", false),
		Entry("domain may not import ports", "keygate/domain/llm", "keygate/ports", false),
		Entry("domain may not import an adapter", "keygate/domain/llm", "keygate/adapters/sqlite", false),
		Entry("ports may import domain", "keygate/ports", "keygate/domain/llm", true),
		Entry("ports may not import an adapter", "keygate/ports", "keygate/adapters/sqlite", false),
		Entry("ports may not import generated code", "keygate/ports", "keygate/gen/cursor/agent/v1", false),
		Entry("ports may not import a third-party module", "keygate/ports", "github.com/jackc/pgx/v5", false),
		Entry("the port contract suite may import gomega", "keygate/ports/porttest", "github.com/onsi/gomega", true),
		Entry("the port contract suite may not import an adapter", "keygate/ports/porttest", "keygate/adapters/sqlite", false),
		Entry("app use cases may import ports", "keygate/app/run", "keygate/ports", true),
		Entry("app use cases may not import an adapter", "keygate/app/run", "keygate/adapters/provider/openai", false),
		Entry("app use cases may not import generated code", "keygate/app/control", "keygate/gen/cursor/agent/v1", false),
		Entry("the composition root may import adapters", "keygate/app", "keygate/adapters/sqlite", true),
		Entry("the SQLite adapter may import its sqlc package", "keygate/adapters/sqlite", "keygate/gen/sqlc/sqlitedb", true),
		Entry("another adapter may not import the SQLite sqlc package", "keygate/adapters/postgres", "keygate/gen/sqlc/sqlitedb", false),
		Entry("the composition root may not import a sqlc package", "keygate/app", "keygate/gen/sqlc/pgdb", false),
		Entry("the PostgreSQL adapter's subpackages may import its sqlc package", "keygate/adapters/postgres/migrate", "keygate/gen/sqlc/pgdb", true),
	)
})
